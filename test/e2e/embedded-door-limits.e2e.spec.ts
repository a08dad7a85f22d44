import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../support/embedded-service.ts';
import { download } from '../support/api-client.ts';
import { isPdf, pdfText } from '../support/pdf-tools.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;
type Res = Awaited<ReturnType<Svc['api']['call']>>;

/**
 * Issue 7, point 3: bounded work at the door. Every pathological input is sent to the real
 * service process while `/healthz` is probed back to back, and the service's own event-loop
 * delay is read from its /metrics; the bound is the issue's: no single request may hold the
 * event loop for 100 ms or more.
 *
 * The machine is two shared cores under load from other work, which can delay a probe or a
 * timer without any request being at fault. A request that blocks the loop does so every
 * time it is sent, for at least as long; so each vector is sent up to three times and the
 * bound must hold on one of them (the least disturbed). A vector that really blocks fails
 * all three.
 */
const BOUND_MS = 100;
const ATTEMPTS = 3;

interface Measure {
  probeMaxMs: number;
  probes: number;
  serviceMaxMs: number;
  stallsOver100: number;
  requestMs: number;
}

const figures: { vector: string; status: number; best: Measure | undefined; attempts: number }[] = [];

const created = (res: Res) => expect(res.status, res.text).toBe(201);
/** Template code opening `n` loops, each with its own alias. */
const aliases = (n: number) => Array.from({ length: n }, (_, i) => `it.l${i}.forEach((a${i}, j) => {`).join('');
/** `{"a":{"a":…1…}}`, `levels` deep, as JSON text (JSON.stringify would overflow the test's own stack). */
const nestJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('embedded profile: bounded work at the door, event loop under 100 ms per request', () => {
  let svc: Svc;
  let plainId: string;
  let patternId: string;
  let bombId: string;

  async function metricsNow(): Promise<{ lagMaxMs: number; over100: number }> {
    const text = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    const count = num(/^pressroom_event_loop_delay_seconds_count (\S+)$/m);
    const le100 = num(/^pressroom_event_loop_delay_seconds_bucket\{le="0\.1"\} (\S+)$/m);
    return { lagMaxMs: num(/^nodejs_eventloop_lag_max_seconds (\S+)$/m) * 1000, over100: count - le100 };
  }

  /** Sends one request while probing /healthz; the figures of the window around it. */
  async function underProbe(send: () => Promise<Res>): Promise<{ res: Res; m: Measure }> {
    const before = await metricsNow(); // also resets nodejs_eventloop_lag_max_seconds
    let stop = false;
    const latencies: number[] = [];
    const prober = (async () => {
      while (!stop) {
        const t = performance.now();
        await fetch(`${svc.baseUrl}/healthz`).then((r) => r.arrayBuffer());
        latencies.push(performance.now() - t);
        await sleep(5);
      }
    })();
    await sleep(20);
    const t = performance.now();
    const res = await send();
    const requestMs = performance.now() - t;
    await sleep(60);
    stop = true;
    await prober;
    const after = await metricsNow();
    return {
      res,
      m: {
        probeMaxMs: Math.round(Math.max(...latencies)),
        probes: latencies.length,
        serviceMaxMs: Math.round(after.lagMaxMs),
        stallsOver100: after.over100 - before.over100,
        requestMs: Math.round(requestMs),
      },
    };
  }

  /**
   * Runs a vector until one attempt keeps both the probe and the service's own delay under the
   * bound (at most ATTEMPTS); checks every answer; records the figures.
   */
  async function vector(name: string, send: () => Promise<Res>, check: (res: Res) => void): Promise<Res> {
    const seen: Measure[] = [];
    let last: Res | undefined;
    for (let i = 0; i < ATTEMPTS; i++) {
      const { res, m } = await underProbe(send);
      check(res);
      last = res;
      seen.push(m);
      if (m.probeMaxMs < BOUND_MS && m.serviceMaxMs < BOUND_MS && m.stallsOver100 === 0) break;
    }
    const best = seen.find((m) => m.probeMaxMs < BOUND_MS && m.serviceMaxMs < BOUND_MS && m.stallsOver100 === 0);
    figures.push({ vector: name, status: last?.status ?? 0, best: best ?? seen.at(-1), attempts: seen.length });
    expect(best, `${name}: every attempt blocked the event loop for ${BOUND_MS} ms or more: ${JSON.stringify(seen)}`).toBeDefined();
    return last as Res;
  }

  /** A 400 in the one error shape whose details name `setting` (or say what is wrong). */
  const refused =
    (field: string, mention: string | RegExp) =>
    (res: Res): void => {
      expect(res.status, res.text.slice(0, 500)).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_FAILED');
      const detail = (res.json.error.details as { field: string; message: string }[]).find((d) => d.field.startsWith(field));
      expect(detail, JSON.stringify(res.json.error.details).slice(0, 500)).toBeDefined();
      expect(detail?.message).toMatch(mention);
    };

  const templateCount = async () => ((await svc.api.get('/v1/templates')).json.templates as unknown[]).length;

  beforeAll(async () => {
    svc = await startEmbedded();
    plainId = (await svc.api.post('/v1/templates', { name: 'plain', content: '<p>Hello <%= it.name %></p>' })).json.templateId;
    const pattern = await svc.api.post('/v1/templates', {
      name: 'pattern',
      content: '<p><%= it.code %></p>',
      dataSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] },
    });
    expect(pattern.status, pattern.text).toBe(201);
    patternId = pattern.json.templateId;
    // Many branches (within the node bound) checked for each of many elements.
    const leaves = Array.from({ length: 40 }, (_, i) => ({
      type: 'object',
      required: [`k${i}`],
      properties: { [`k${i}`]: { type: 'string' } },
    }));
    const bomb = await svc.api.post('/v1/templates', {
      name: 'bomb',
      content: '<p><%= it.rows.length %></p>',
      dataSchema: {
        type: 'object',
        properties: { rows: { type: 'array', items: { anyOf: Array.from({ length: 6 }, () => ({ $ref: '#/$defs/leaf' })) } } },
        $defs: { leaf: { anyOf: leaves } },
      },
    });
    expect(bomb.status, bomb.text).toBe(201);
    bombId = bomb.json.templateId;
    // Warm the validation worker, so no vector pays for its start.
    expect((await svc.api.post('/v1/pdf/sync', { templateId: patternId, data: { code: 'b' } })).status).toBe(400);
  });
  afterAll(async () => {
    console.log(
      `event-loop figures per vector (bound ${BOUND_MS} ms; best of up to ${ATTEMPTS} attempts):\n` +
        figures
          .map(
            (f) =>
              `  ${f.vector.padEnd(34)} ${f.status}  probe max ${f.best?.probeMaxMs} ms (${f.best?.probes} probes), service max ${f.best?.serviceMaxMs} ms, stalls>100ms ${f.best?.stallsOver100}, request ${f.best?.requestMs} ms, attempts ${f.attempts}`,
          )
          .join('\n'),
    );
    await svc?.app.stop();
  });

  describe('data', () => {
    it('10,000-level data (sync and async) is a 400 naming the depth limit; the process stays up', async () => {
      const body = (path: string) => () => svc.api.post(path, `{"templateId":"${plainId}","data":${nestJson(10_000)}}`);
      await vector('data 10,000 levels, sync', body('/v1/pdf/sync'), refused('(body)', /PRESSROOM_MAX_JSON_DEPTH/));
      const async = () =>
        svc.api.post('/v1/pdf/async', `{"templateId":"${plainId}","webhook":"https://example.com/h","data":${nestJson(10_000)}}`);
      await vector('data 10,000 levels, async', async, refused('(body)', /PRESSROOM_MAX_JSON_DEPTH/));
      expect((await fetch(`${svc.baseUrl}/healthz`)).status).toBe(200);
    });

    it('data deeper than the data limit (50 levels) is a 400 naming PRESSROOM_MAX_DATA_DEPTH', async () => {
      const body = `{"templateId":"${plainId}","data":{"name":"x","deep":${nestJson(50)}}}`;
      await vector('data 50 levels', () => svc.api.post('/v1/pdf/sync', body), refused('data', /PRESSROOM_MAX_DATA_DEPTH/));
    });

    it('deep values anywhere in a body (html render metadata, unsaved preview schema) are refused the same way', async () => {
      const html = `{"html":"<p>x</p>","metadata":${nestJson(10_000)}}`;
      await vector(
        'html body, 10,000-level field',
        () => svc.api.post('/v1/html-to-pdf/sync', html),
        refused('(body)', /PRESSROOM_MAX_JSON_DEPTH/),
      );
      const preview = `{"content":"<p>x</p>","dataSchema":{"type":"object","properties":${nestJson(5_000)}}}`;
      await vector(
        'unsaved preview, 5,000-level schema',
        () => svc.api.post('/v1/templates/preview', preview),
        refused('(body)', /PRESSROOM_MAX_JSON_DEPTH/),
      );
    });

    it('huge arrays, many keys, or a huge string are refused before parsing or at the data limits, naming the limit', async () => {
      const array = JSON.stringify({ templateId: plainId, data: { name: 'x', items: new Array(300_000).fill(0) } });
      await vector('data array of 300,000', () => svc.api.post('/v1/pdf/sync', array), refused('(body)', /PRESSROOM_MAX_JSON_VALUES/));
      const keys = JSON.stringify({
        templateId: plainId,
        data: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])),
      });
      await vector('data with 100,000 keys', () => svc.api.post('/v1/pdf/sync', keys), refused('(body)', /PRESSROOM_MAX_JSON_VALUES/));
      const some = JSON.stringify({
        templateId: plainId,
        data: Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, i])),
      });
      await vector('data with 12,000 keys', () => svc.api.post('/v1/pdf/sync', some), refused('data', /PRESSROOM_MAX_DATA_KEYS/));
      const big = JSON.stringify({ templateId: plainId, data: { name: 'x'.repeat(2_000_000) } });
      await vector('data string of 2 MB', () => svc.api.post('/v1/pdf/sync', big), refused('data', /PRESSROOM_MAX_DATA_BYTES/));
    });
  });

  describe('data schemas', () => {
    it('a backtracking pattern (^(a+)+$) runs in linear time: the mismatch is a quick 400, short or long', async () => {
      const short = JSON.stringify({ templateId: patternId, data: { code: `${'a'.repeat(28)}b` } });
      await vector('pattern ^(a+)+$, 29 chars', () => svc.api.post('/v1/pdf/sync', short), refused('data.code', /pattern/));
      const long = JSON.stringify({ templateId: patternId, data: { code: `${'a'.repeat(900_000)}b` } });
      await vector('pattern ^(a+)+$, 900,000 chars', () => svc.api.post('/v1/pdf/sync', long), refused('data.code', /pattern/));
      const preview = JSON.stringify({
        content: '<p><%= it.code %></p>',
        dataSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a|aa)+$' } } },
        data: { code: `${'a'.repeat(40)}b` },
      });
      await vector(
        'unsaved preview, (a|aa)+ pattern',
        () => svc.api.post('/v1/templates/preview', preview),
        refused('data.code', /pattern/),
      );
    });

    it('patterns outside RE2 (lookaround, backreferences), too long, or patternProperties are refused at create', async () => {
      const schema = (s: object) => JSON.stringify({ name: 't', content: '<p><%= it.x %></p>', dataSchema: { type: 'object', ...s } });
      const look = schema({ properties: { x: { type: 'string', pattern: '^(?=a)(a+)+$' } } });
      await vector('lookahead pattern', () => svc.api.post('/v1/templates', look), refused('dataSchema.properties.x.pattern', /RE2/));
      const back = schema({ properties: { x: { type: 'string', pattern: '^(a+)\\1$' } } });
      await vector('backreference pattern', () => svc.api.post('/v1/templates', back), refused('dataSchema.properties.x.pattern', /RE2/));
      const long = schema({ properties: { x: { type: 'string', pattern: '(a|b)*'.repeat(2_000) } } });
      await vector(
        'pattern of 12,000 chars',
        () => svc.api.post('/v1/templates', long),
        refused('dataSchema.properties.x.pattern', /longer/),
      );
      const pp = schema({ patternProperties: { '^(a+)+$': { type: 'string' } } });
      await vector('patternProperties', () => svc.api.post('/v1/templates', pp), refused('dataSchema.patternProperties', /not supported/));
    });

    it('chained anyOf/$ref (18 levels), wide $ref fan-out and $ref cycles are refused at create, naming the limit', async () => {
      const before = await templateCount();
      const chain = (levels: number, width: number) => {
        const defs: Record<string, unknown> = {};
        for (let i = 0; i < levels; i++) defs[`d${i}`] = { anyOf: Array.from({ length: width }, () => ({ $ref: `#/$defs/d${i + 1}` })) };
        defs[`d${levels}`] = { type: 'string', minLength: 2 };
        return JSON.stringify({
          name: 't',
          content: '<p><%= it.x %></p>',
          dataSchema: { type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs: defs },
        });
      };
      const c18 = chain(18, 2);
      expect(c18.length).toBeLessThan(1_600); // the issue's 1.3 KB schema
      await vector(
        'anyOf/$ref chain, 18 levels',
        () => svc.api.post('/v1/templates', c18),
        refused('dataSchema', /PRESSROOM_MAX_SCHEMA_(DEPTH|NODES)/),
      );
      const wide = chain(6, 10);
      await vector('$ref fan-out 10^6', () => svc.api.post('/v1/templates', wide), refused('dataSchema', /PRESSROOM_MAX_SCHEMA_NODES/));
      const cycle = JSON.stringify({
        name: 't',
        content: '<p><%= it.x %></p>',
        dataSchema: {
          type: 'object',
          properties: { x: { $ref: '#/$defs/n' } },
          $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } } } },
        },
      });
      await vector('$ref cycle', () => svc.api.post('/v1/templates', cycle), refused('dataSchema', /refers back to itself/));
      const enumOf = (n: number) =>
        JSON.stringify({
          name: 't',
          content: '<p><%= it.x %></p>',
          dataSchema: { type: 'object', properties: { x: { enum: Array.from({ length: n }, (_, i) => `v${i}`) } } },
        });
      const e12k = enumOf(12_000);
      await vector('enum of 12,000', () => svc.api.post('/v1/templates', e12k), refused('dataSchema', /PRESSROOM_MAX_SCHEMA_BYTES/));
      const e100k = enumOf(100_000);
      await vector('enum of 100,000', () => svc.api.post('/v1/templates', e100k), refused('(body)', /PRESSROOM_MAX_JSON_VALUES/));
      expect(await templateCount()).toBe(before);
    });

    it('a schema that is costly to check against big data is checked off the event loop (deadline or answer, never a stall)', async () => {
      const rows = Array.from({ length: 4_900 }, () => ({ zz: 1 }));
      const body = JSON.stringify({ templateId: bombId, data: { rows } });
      await vector('anyOf fan-out x 4,900 rows', () => svc.api.post('/v1/pdf/sync', body), refused('data', /./));
      // The worker is replaced after a deadline: the next declared-schema check still answers.
      const next = await svc.api.post('/v1/pdf/sync', { templateId: patternId, data: { code: 'b' } });
      refused('data.code', /pattern/)(next);
    });
  });

  describe('template sources', () => {
    it('"<%" x 120,000 and other unclosed or quote-heavy sources infer in linear time; GET /v1/templates stays fast', async () => {
      const open = JSON.stringify({ name: 'open', content: '<%'.repeat(120_000) });
      await vector('"<%" x 120,000 (create)', () => svc.api.post('/v1/templates', open), created);
      const quotes = JSON.stringify({ name: 'quotes', content: `<% ${`'\\`.repeat(30_000)} %>` });
      await vector('"\'\\" x 30,000 (create)', () => svc.api.post('/v1/templates', quotes), created);
      const loops = JSON.stringify({ name: 'loops', content: `<% ${aliases(1_500)} %>` });
      await vector('1,500 loop aliases (create)', () => svc.api.post('/v1/templates', loops), created);
      const calls = JSON.stringify({ name: 'calls', content: `<% ${'it.a.forEach((x'.repeat(4_000)} %>` });
      await vector('4,000 unclosed loop heads (create)', () => svc.api.post('/v1/templates', calls), created);
      await vector(
        'GET /v1/templates',
        () => svc.api.get('/v1/templates'),
        (res) => expect(res.status).toBe(200),
      );
    });

    it('a source over the size limit, or with more code inside tags than the code limit, is a 400 naming the limit', async () => {
      const body = JSON.stringify({ name: 'big', content: '<%'.repeat(200_000) });
      await vector(
        '"<%" x 200,000 (create)',
        () => svc.api.post('/v1/templates', body),
        refused('content', /PRESSROOM_MAX_TEMPLATE_BYTES/),
      );
      const quotes = JSON.stringify({ name: 'quotes', content: `<% ${`'\\`.repeat(120_000)} %>` });
      const code = refused('content', /PRESSROOM_MAX_TEMPLATE_CODE_BYTES/);
      await vector('"\'\\" x 120,000 (create)', () => svc.api.post('/v1/templates', quotes), code);
      const loops = JSON.stringify({ name: 'loops', content: `<% ${aliases(5_000)} %>` });
      await vector('5,000 loop aliases (create)', () => svc.api.post('/v1/templates', loops), code);
      const calls = JSON.stringify({ name: 'calls', content: `<% ${'it.a.forEach((x'.repeat(15_000)} %>` });
      await vector('15,000 unclosed loop heads (create)', () => svc.api.post('/v1/templates', calls), code);
    });

    it('a 4,000-segment member chain is a 400 that stores nothing; GET /v1/templates keeps answering 200', async () => {
      const before = await templateCount();
      const body = JSON.stringify({ name: 'chain', content: `<%= it${'.a'.repeat(4_000)} %>` });
      await vector('it.a x 4,000 (create)', () => svc.api.post('/v1/templates', body), refused('content', /PRESSROOM_MAX_DATA_DEPTH/));
      const long = JSON.stringify({ name: 'chain', content: `<%= it${'.a'.repeat(120_000)} %>` });
      await vector(
        'it.a x 120,000 (create)',
        () => svc.api.post('/v1/templates', long),
        refused('content', /PRESSROOM_MAX_TEMPLATE_CODE_BYTES/),
      );
      const revise = JSON.stringify({ name: 'chain', content: `<%= it${'.a'.repeat(4_000)} %>` });
      await vector(
        'it.a x 4,000 (revise)',
        () => svc.api.put(`/v1/templates/${plainId}`, revise),
        refused('content', /PRESSROOM_MAX_DATA_DEPTH/),
      );
      const list = await svc.api.get('/v1/templates');
      expect(list.status).toBe(200);
      expect(list.json.templates).toHaveLength(before);
      expect((await svc.api.get(`/v1/templates/${plainId}`)).json.latestVersion).toBe(1);
    });
  });

  it('after all of it, a plain render succeeds', async () => {
    const res = await svc.api.post('/v1/pdf/sync', { templateId: plainId, data: { name: 'Ada' } });
    expect(res.status, res.text).toBe(200);
    const file = await download(res.json.signedUrl);
    expect(isPdf(file.bytes)).toBe(true);
    expect(await pdfText(file.bytes)).toContain('Hello Ada');
  });

  it('every app exposes its event-loop delay on /metrics', async () => {
    const text = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    expect(text).toMatch(/^pressroom_event_loop_delay_seconds_bucket\{le="0\.1"\} \d+$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_max_seconds \S+$/m);
  });
});
