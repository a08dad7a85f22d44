import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '@pressroom/schemas';
import { STATUS_BUILT_MARKER, STATUS_DOCUMENTS } from '@pressroom/core';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { apiClient, download, type ApiClient } from '../support/api-client.ts';
import { PrivateRedis } from '../support/private-redis.ts';
import { ScriptedReceiver, verifyWithStandardWebhooks } from '../support/scripted-receiver.ts';
import { ledgerWebhookCalls, settleAndCheckLedger, type LedgerSubmission } from '../support/ledger.ts';
import { readLogEvents } from '../support/ops-cli.ts';
import { solidPng } from '../support/fixtures.ts';
import { pdfImages, pdfText } from '../support/pdf-tools.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;
type Answer = { what: string; status: number; body: string; at: string; requestId?: string };

/** How long the restarted Redis stays away. */
const REDIS_AWAY_MS = 3_000;

/**
 * Issue 8 point 1: Redis is a view of the log. A FLUSHALL, or a restart of a Redis without
 * persistence, under load: no valid key is refused (401), no accepted request is unknown
 * (404), the webhook signing secret stays the same (signatures verify with the secret read
 * before), and the views come back without any operator step: webhook deliveries pending or
 * retrying across the loss are made, numbered and timed where the log left them (no delivery
 * lost, none sent again), and an uploaded asset is still served to the API and to renders.
 * The shared ledger checks every request of the load afterwards.
 */
describe('distributed profile: Redis loses its data under load', () => {
  const redis = new PrivateRedis();
  const receiver = new ScriptedReceiver();
  let env: Env;
  let tenant: ApiClient;
  let secret: string;
  let templateId: string;
  let logoTemplateId: string;
  const accepted: string[] = [];
  const submissions: LedgerSubmission[] = [];
  const logo = solidPng(40, 20);

  beforeAll(async () => {
    await redis.start();
    await receiver.start();
    env = await distributedEnv({ REDIS_URL: redis.url, PRESSROOM_SYNC_TIMEOUT_MS: '20000' });
    await env.start('ingress', env.ingressPort);
    await Promise.all([env.start('status-projector'), env.start('webhook-dispatcher'), env.start('render-worker')]);
    // A tenant of the operator's, with its own key, a template and a signing secret
    const created = await env.admin.post('/admin/v1/tenants', { name: 'Acme', plan: 'high' });
    expect(created.status).toBe(201);
    const key = await env.admin.post(`/admin/v1/tenants/${created.json.tenantId}/keys`, { label: 'load' });
    expect(key.status).toBe(201);
    tenant = apiClient(`http://127.0.0.1:${env.ingressPort}`, key.json.apiKey);
    secret = (await tenant.get('/v1/webhooks/secret')).json.secret;
    templateId = (await tenant.post('/v1/templates', { name: 'g', content: '<p>Hello <%= it.name %></p>' })).json.templateId;
    expect(templateId).toMatch(/^tpl_/);
    // And an uploaded image a template uses
    const up = await tenant.post('/v1/assets', {
      name: 'logo.png',
      contentType: 'image/png',
      dataBase64: Buffer.from(logo).toString('base64'),
    });
    expect(up.status, up.text).toBe(201);
    logoTemplateId = (
      await tenant.post('/v1/templates', {
        name: 'with logo',
        content: '<p>Logo below</p><img src="https://assets.pressroom.invalid/logo.png" width="40" height="20">',
      })
    ).json.templateId;
    expect(logoTemplateId).toMatch(/^tpl_/);
  });
  afterAll(async () => {
    await env?.stopAll();
    await receiver.stop();
    await redis.dispose();
  });

  /** Submits renders and reads statuses, templates and the secret, with both keys, until `stop`. */
  function load(run: string) {
    const answers: Answer[] = [];
    let running = true;
    const record = async (what: string, call: Promise<{ status: number; text: string }>, requestId?: string) => {
      const r = await call.catch((e: Error) => ({ status: 0, text: e.message }));
      const at = new Date().toISOString();
      if (r.status === 404 && requestId) {
        const prefix = env.env.PRESSROOM_REDIS_PREFIX;
        const seen = await redis
          .command(async (c) => ({
            entry: await c.get(`${prefix}${STATUS_DOCUMENTS.name}${requestId}`),
            built: await c.get(`${prefix}${STATUS_BUILT_MARKER}`),
            notes: await c.keys(`${prefix}${STATUS_BUILT_MARKER}:*`),
          }))
          .catch((e: Error) => e.message);
        process.stdout.write(`redis-loss e2e: 404 for ${requestId} at ${at}; Redis now: ${JSON.stringify(seen)}\n`);
      }
      answers.push({ what, status: r.status, body: r.text, at, ...(requestId ? { requestId } : {}) });
      return r;
    };
    // Three callers at once, each submitting a render and then reading a status, the template and a list.
    const lane = async (lane: number) => {
      for (let i = 0; running; i++) {
        const id = accepted[(i * 7 + lane) % Math.max(1, accepted.length)];
        const tag = `rl-${run}-${lane}-${i}x`;
        const webhookPath = `/load/${tag}`;
        const submitted = await record(
          'submit',
          tenant.post('/v1/html-to-pdf/async', { html: `<p>load ${tag}</p>`, webhook: receiver.url(webhookPath) }),
        );
        const requestId = submitted.status === 200 ? (JSON.parse(submitted.text) as { requestId: string }).requestId : undefined;
        submissions.push({ tag, status: submitted.status, webhookPath, ...(requestId ? { requestId } : {}) });
        if (requestId) accepted.push(requestId);
        await Promise.all([
          id ? record('status', tenant.get(`/v1/pdf/status/${id}`), id) : undefined,
          record('template', tenant.get(`/v1/templates/${templateId}`)),
          record('default key', env.api.get('/v1/templates')),
        ]);
      }
    };
    const loop = Promise.all([0, 1, 2].map(lane));
    return {
      answers,
      async stop() {
        running = false;
        await loop;
      },
    };
  }

  const refusedOrUnknown = (answers: Answer[]) => answers.filter((a) => a.status === 401 || a.status === 404);

  /**
   * No answer refused a valid key or called an accepted request unknown. When one did, what the log
   * holds for each such request is written out first (when each event happened against when the
   * answer came), so a failure in CI tells which view lost what.
   */
  async function expectNoneRefusedOrUnknown(answers: Answer[]) {
    const wrong = refusedOrUnknown(answers);
    if (wrong.length) {
      const events = await readEvents().catch(() => [] as LogEvent[]);
      for (const a of wrong) {
        const own = events.filter((e) => 'requestId' in e && e.requestId === a.requestId);
        process.stdout.write(
          `redis-loss e2e: ${a.what} answered ${a.status} at ${a.at}${a.requestId ? ` for ${a.requestId}` : ''}: ${a.body.slice(0, 200)}; ` +
            `its events: ${JSON.stringify(own.map((e) => [e.type, e.occurredAt]))}\n`,
        );
      }
    }
    expect(wrong).toEqual([]);
  }
  /** Anything but a success or an honest "not now" (503 with nothing taken) is a defect. */
  const neitherOkNorUnavailable = (answers: Answer[]) => answers.filter((a) => a.status !== 200 && a.status !== 503);

  const readEvents = (): Promise<LogEvent[]> => readLogEvents(env.env);

  /** Waits until the log has decided every submission, then checks the shared ledger. */
  async function checkTheLedger(): Promise<LogEvent[]> {
    const { events, report } = await settleAndCheckLedger({
      submissions,
      readEvents,
      settle: { timeoutMs: 120_000 },
      webhookCalls: () => ledgerWebhookCalls(receiver.calls.filter((c) => c.path.startsWith('/load/') || c.path.startsWith('/retry/'))),
      status: async (id) => {
        const r = await tenant.get(`/v1/pdf/status/${id}`);
        return { status: r.status, json: r.json };
      },
      download: async (url) => (await download(url)).bytes,
    });
    process.stdout.write(`redis-loss e2e ledger: ${JSON.stringify(report.figures)}\n`);
    expect(report.violations).toEqual([]);
    return events;
  }

  async function checkSecretAndWebhooks(path: string) {
    // The signing secret is the one read before Redis lost its data
    const now = await tenant.get('/v1/webhooks/secret');
    expect(now.status).toBe(200);
    expect(now.json.secret).toBe(secret);
    // And a webhook delivered now verifies with it
    const res = await tenant.post('/v1/html-to-pdf/async', { html: '<p>after</p>', webhook: receiver.url(path) });
    expect(res.status).toBe(200);
    const call = await waitFor(() => receiver.calls.find((c) => c.path === path), { timeoutMs: 60_000, description: `webhook ${path}` });
    expect(verifyWithStandardWebhooks(secret, call)).toMatchObject({ requestId: res.json.requestId, renderStatus: 'SUCCESS' });
  }

  it('FLUSHALL under load: no 401, no 404 for accepted requests, same webhook secret, views back without an operator', async () => {
    const running = load('flush');
    await waitFor(() => accepted.length >= 40, { timeoutMs: 120_000, description: '40 accepted requests' });
    // Webhooks whose receiver fails first (asking to be called again in 20 s), then answers 200
    const retrying: { path: string; requestId: string }[] = [];
    for (let k = 0; k < 4; k++) {
      const tag = `rl-retry-${k}x`;
      const path = `/retry/${tag}`;
      receiver.script(path, { status: 503, headers: { 'retry-after': '20' } }, { status: 200 });
      const res = await tenant.post('/v1/html-to-pdf/async', { html: `<p>retry ${tag}</p>`, webhook: receiver.url(path) });
      expect(res.status, res.text).toBe(200);
      submissions.push({ tag, status: res.status, webhookPath: path, requestId: res.json.requestId });
      retrying.push({ path, requestId: res.json.requestId });
    }
    // The flush comes when each has been refused once: their next attempts are due in Redis only
    for (const { path } of retrying) await receiver.waitForCalls(path, 1, 90_000);
    await redis.flushAll();
    const flushedAt = running.answers.length;
    await waitFor(() => running.answers.length >= flushedAt + 200, { timeoutMs: 120_000, description: '200 answers after the flush' });
    await running.stop();
    await expectNoneRefusedOrUnknown(running.answers);
    expect(neitherOkNorUnavailable(running.answers)).toEqual([]);
    process.stdout.write(
      `redis-loss e2e: FLUSHALL after ${flushedAt} answers, ${running.answers.length} in all, ${accepted.length} accepted\n`,
    );
    expect(running.answers.filter((a) => a.what === 'status' && a.status === 200).length).toBeGreaterThan(10);
    // Every accepted request is known, and finishes
    for (const id of accepted) {
      const done = await waitFor(
        async () => {
          const s = await tenant.get(`/v1/pdf/status/${id}`);
          expect(s.status).toBe(200);
          return s.json.renderStatus !== 'ONGOING' ? s.json : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 200, description: `request ${id} to finish` },
      );
      expect(done.renderStatus).toBe('SUCCESS');
    }
    await checkSecretAndWebhooks('/after-flush');

    // The asset is still there: a render uses it (the worker's index rebuilds itself), and the API serves it
    const rendered = await tenant.post('/v1/pdf/sync', { templateId: logoTemplateId });
    expect(rendered.status, rendered.text).toBe(200);
    const pdf = (await download(rendered.json.signedUrl)).bytes;
    expect(await pdfText(pdf)).toContain('Logo below');
    expect(await pdfImages(pdf)).toEqual([expect.objectContaining({ page: 1, width: 40, height: 20 })]);
    const content = await tenant.get('/v1/assets/logo.png/content');
    expect(content.status).toBe(200);
    expect((await tenant.get('/v1/assets')).json.assets.map((a: { name: string }) => a.name)).toEqual(['logo.png']);

    // The retrying webhooks were each called again once, after the flush, with the same webhook-id, and
    // the log numbers their attempts 1 and 2 (the retry continued where it was, nothing sent twice)
    const events = await checkTheLedger();
    for (const { path, requestId } of retrying) {
      const calls = receiver.callsTo(path);
      expect(calls.map((c) => c.headers['webhook-id'])).toEqual([calls[0]!.headers['webhook-id'], calls[0]!.headers['webhook-id']]);
      const attempts = events.flatMap((e) => (e.type === 'WebhookAttempted' && e.requestId === requestId ? [e.data] : []));
      expect(attempts.map((a) => [a.attempt, a.outcome, a.statusCode])).toEqual([
        [1, 'retrying', 503],
        [2, 'delivered', 200],
      ]);
      // The second attempt was made when the first one said, not earlier
      expect(Date.parse(attempts[1]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(attempts[0]!.nextAttemptAt!));
    }
  }, 300_000);

  it('a restart of the Redis without persistence under load: nothing refused or unknown, same secret', async () => {
    const running = load('restart');
    await waitFor(() => running.answers.length >= 30, { timeoutMs: 60_000, description: '30 answers before the restart' });
    // A sync render of many pages, sent just before: it waits through the outage for its result.
    const syncTag = 'rl-restart-syncx';
    const syncDuringOutage = tenant.post('/v1/html-to-pdf/sync', { html: `<p>sync ${syncTag}</p>${'<p>page filler</p>'.repeat(3000)}` });
    await new Promise((r) => setTimeout(r, 150));
    await redis.stop();
    // Away for a few seconds, as a real restart is: every command meanwhile fails, so submits whose
    // append the log took find no view to record them in (accepted all the same, never a 503).
    await new Promise((r) => setTimeout(r, REDIS_AWAY_MS));
    await redis.start();
    const sync = await syncDuringOutage;
    const syncId = sync.headers.get('x-request-id');
    // 200 with the file; 202 if the wait ran out; or 503, refused before the log (the API key's lookup needs
    // Redis), which the ledger holds to "nothing ran". Never a 503 for a render that ran.
    expect([200, 202, 503], sync.text).toContain(sync.status);
    submissions.push({ tag: syncTag, status: sync.status, ...(sync.status !== 503 && syncId ? { requestId: syncId } : {}) });
    if (sync.status === 200) expect(await pdfText((await download(sync.json.signedUrl)).bytes)).toContain(`sync ${syncTag}`);
    const restartedAt = running.answers.length;
    await waitFor(() => running.answers.length >= restartedAt + 200, { timeoutMs: 120_000, description: '200 answers after the restart' });
    await running.stop();
    process.stdout.write(
      `redis-loss e2e: restart after ${restartedAt} answers, ${running.answers.length} in all, ` +
        `${running.answers.filter((a) => a.status === 503).length} answered 503; the sync render across it answered ${sync.status}\n`,
    );
    await expectNoneRefusedOrUnknown(running.answers);
    expect(neitherOkNorUnavailable(running.answers)).toEqual([]);
    expect((await tenant.get(`/v1/templates/${templateId}`)).status).toBe(200);
    await checkSecretAndWebhooks('/after-restart');
    expect((await tenant.get('/v1/assets/logo.png')).status).toBe(200);
    await checkTheLedger();
  }, 240_000);
});
