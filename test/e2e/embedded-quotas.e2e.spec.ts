import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { isPdf } from '../support/pdf-tools.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

/** Slow but finishing: busy for a few seconds, then done. */
const spinFor = (ms: number) => `<p>slow</p><script>const end = Date.now() + ${ms}; while (Date.now() < end) {}</script>`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 11 points 3 and 4 on the embedded profile: plans as configuration, with two tenants on
 * different plans. `standard` is configured tiny (4 requests per key at once, 1 render in flight,
 * batches of 2); `high` keeps its rate, takes 4 renders in flight and PNGs of 2 pages. The async lane closes at a
 * backlog of 3.
 */
describe('embedded profile: plan quotas answer 429 and recover', () => {
  let svc: Svc;
  const receiver = new WebhookReceiver();
  let webhook = '';

  const tenant = async (tenantId: string, plan: 'standard' | 'high') => {
    expect((await svc.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan })).status).toBe(201);
    return tenantId;
  };
  const key = async (tenantId: string): Promise<ApiClient> =>
    apiClient(svc.baseUrl, (await svc.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'e2e' })).json.apiKey);
  /** Sends until the answer is not a 429, waiting the Retry-After it was told each time; returns every answer. */
  const untilAccepted = async (send: () => ReturnType<ApiClient['post']>) => {
    const answers: Awaited<ReturnType<ApiClient['post']>>[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await send();
      answers.push(res);
      if (res.status !== 429) return answers;
      await sleep(Number(res.headers.get('retry-after')) * 1000);
    }
    return answers;
  };

  beforeAll(async () => {
    await receiver.start();
    webhook = receiver.url('/quotas');
    svc = await startEmbedded({
      PRESSROOM_PLANS: JSON.stringify({
        standard: { requestsPerSecond: 1, burst: 4, concurrentRenders: 1, batchMaxItems: 2, pngMaxPixels: 500_000 },
        high: { concurrentRenders: 4, pngMaxPages: 2 },
      }),
      PRESSROOM_ASYNC_BACKLOG_MAX: '3',
      PRESSROOM_BACKLOG_REFRESH_MS: '50',
    });
    await tenant('small', 'standard');
    await tenant('big', 'high');
    await tenant('probe', 'high');
  });
  afterAll(async () => {
    await svc?.app.kill();
    await receiver.stop();
  });

  it('limits the rate per key: RateLimit headers count down, 429 RATE_LIMITED past the burst, 200 again after Retry-After', async () => {
    const small = await key('small');
    const big = await key('big');
    // Given a standard key's burst of 4 spent
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await small.get('/v1/templates'));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers[0]!.headers.get('ratelimit-policy')).toBe('"per-key";q=4;w=4');
    const left = answers.map((a) => Number(/r=(\d+)/.exec(a.headers.get('ratelimit') ?? '')?.[1]));
    expect(left).toEqual([3, 2, 1, 0]);

    // When it sends one more
    const refused = await small.get('/v1/templates');

    // Then 429 RATE_LIMITED in the standard error shape, with Retry-After and the RateLimit fields
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('RATE_LIMITED');
    expect(refused.json.message).toMatch(/1 per second, bursts of 4/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
    // Another tenant (another plan, another key) is untouched
    const other = await big.get('/v1/templates');
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-policy')).toBe('"per-key";q=200;w=2');

    // And after Retry-After the key is served again
    await sleep(retryAfter * 1000);
    expect((await small.get('/v1/templates')).status).toBe(200);
  });

  it('limits renders in flight per tenant, sync and async: 429 CONCURRENCY_LIMITED, then 200 once the render finished', async () => {
    const small = await key('small');
    const other = await key('big');
    // Given the standard tenant's one render in flight
    const first = await small.post('/v1/html-to-pdf/async', { html: spinFor(3_000), webhook });
    expect(first.status).toBe(200);

    // When it asks for another, async or sync
    const asyncRefused = await small.post('/v1/html-to-pdf/async', { html: '<p>two</p>', webhook });
    const syncRefused = await small.post('/v1/html-to-pdf/sync', { html: '<p>two</p>' });

    // Then both are refused before being taken, with Retry-After
    for (const r of [asyncRefused, syncRefused]) {
      expect(r.status).toBe(429);
      expect(r.json.error.code).toBe('CONCURRENCY_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // while the high tenant renders at once
    const otherSync = await other.post('/v1/html-to-pdf/sync', { html: '<p>high</p>' });
    expect(otherSync.status).toBe(200);

    // And once the first render finished, the same request is taken (after its Retry-After)
    const answers = await untilAccepted(() => small.post('/v1/html-to-pdf/sync', { html: '<p>after</p>' }));
    expect(answers.at(-1)!.status).toBe(200);
    expect(answers.slice(0, -1).every((a) => a.json.error.code === 'CONCURRENCY_LIMITED')).toBe(true);
    const status = await small.get(`/v1/pdf/status/${first.json.requestId}`);
    expect(status.json.renderStatus ?? status.json.status).toMatch(/SUCCESS/);
  });

  it("refuses a batch larger than the plan's batchMaxItems with 413 PLAN_LIMIT_EXCEEDED naming the rule", async () => {
    const small = await key('small');
    const res = await small.post('/v1/html-to-pdf/batch', { items: [{ html: 'a' }, { html: 'b' }, { html: 'c' }] });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('PLAN_LIMIT_EXCEEDED');
    expect(res.json.error.details).toEqual([{ field: 'items', message: "has 3 items; your plan's batchMaxItems is 2" }]);
  });

  it("caps a PNG at the plan's pngMaxPixels: the standard tenant's A4 PNG fails OUTPUT_TOO_LARGE naming the limit, the high tenant's renders", async () => {
    const small = await key('small');
    const big = await key('big');
    const refused = await small.post('/v1/html-to-pdf/sync', { html: '<p>png</p>', convertToImage: true });
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('OUTPUT_TOO_LARGE');
    expect(refused.json.error.message).toMatch(/500,000/);
    const rendered = await big.post('/v1/html-to-pdf/sync', { html: '<p>png</p>', convertToImage: true });
    expect(rendered.status).toBe(200);
    expect(new URL(rendered.json.signedUrl).pathname).toMatch(/\.PNG$/);
  });

  it("caps a PNG at the plan's pngMaxPages: a PNG stacking 3 A4 pages fails OUTPUT_TOO_LARGE naming the rule; 2 pages and the PDF render", async () => {
    const big = await key('big');
    // An A4 sheet is 1123 px tall: 3000 px of content stacks 3 sheets, 2000 px stacks 2.
    const tall = (px: number) => `<div style="height:${px}px">tall</div>`;
    const refused = await big.post('/v1/html-to-pdf/sync', { html: tall(3000), convertToImage: true });
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('OUTPUT_TOO_LARGE');
    expect(refused.json.error.message).toMatch(/would stack 3 pages.*pngMaxPages of 2/);
    const two = await big.post('/v1/html-to-pdf/sync', { html: tall(2000), convertToImage: true });
    expect(two.status, two.text).toBe(200);
    expect(new URL(two.json.signedUrl).pathname).toMatch(/\.PNG$/);
    const pdf = await big.post('/v1/html-to-pdf/sync', { html: tall(3000) });
    expect(pdf.status, pdf.text).toBe(200);
  });

  it('back-pressure: past the async backlog, async requests get 429 BACKLOG_FULL while sync ones still answer', async () => {
    const big = await key('big');
    const probe = await key('probe');
    // Given a backlog of 4 slow async renders (the worker renders one of a tenant at a time)
    const flood = await Promise.all([1, 2, 3, 4].map(() => big.post('/v1/html-to-pdf/async', { html: spinFor(2_000), webhook })));
    expect(flood.map((r) => r.status)).toEqual([200, 200, 200, 200]);

    // When another tenant asks for an async render (the backlog is read in the background)
    const refused = await waitFor(
      async () => {
        const r = await probe.post('/v1/html-to-pdf/async', { html: '<p>later</p>', webhook });
        return r.status === 429 ? r : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, description: 'an async request refused for the backlog' },
    );

    // Then it is refused before being taken, with Retry-After
    expect(refused.json.error.code).toBe('BACKLOG_FULL');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // while a sync request, on its own lane, is rendered
    const sync = await probe.call('POST', '/v1/html-to-pdf/sync', { html: '<p>sync lane</p>' });
    expect(sync.status).toBe(200);
    const file = await fetch(sync.json.signedUrl);
    expect(isPdf(new Uint8Array(await file.arrayBuffer()))).toBe(true);

    // And once the backlog drained, async requests are taken again
    const answers = await untilAccepted(() => probe.post('/v1/html-to-pdf/async', { html: '<p>now</p>', webhook }));
    expect(answers.at(-1)!.status).toBe(200);
  });
});
