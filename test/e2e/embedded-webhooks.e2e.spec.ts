import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { ScriptedReceiver, verifyWithStandardWebhooks, type Call } from '../support/scripted-receiver.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

/** Retries compressed from a day to seconds; one attempt may take 1 s. */
const compressed = {
  PRESSROOM_WEBHOOK_TIMEOUT_MS: '1000',
  PRESSROOM_WEBHOOK_RETRY_BASE_MS: '300',
  PRESSROOM_WEBHOOK_RETRY_MAX_MS: '2000',
  PRESSROOM_WEBHOOK_MAX_ATTEMPTS: '6',
};

async function deliveries(api: ApiClient, requestId: string, until: (view: any) => boolean, description: string) {
  return waitFor(
    async () => {
      const res = await api.get(`/v1/pdf/${requestId}/deliveries`);
      return res.status === 200 && until(res.json) ? res.json : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100, description },
  );
}

/** A render's history once it shows what `until` waits for (LinkIssued is appended off the request path). */
async function historyWith(api: ApiClient, requestId: string, until: (types: string[]) => boolean) {
  return waitFor(
    async () => {
      const res = await api.get(`/v1/pdf/${requestId}/events`);
      return res.status === 200 && until((res.json.events as { type: string }[]).map((e) => e.type)) ? res : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100, description: `the history of ${requestId}` },
  );
}

const asyncHtml = (api: ApiClient, webhook: string, text = 'Webhook test') =>
  api.post('/v1/html-to-pdf/async', { html: `<p>${text}</p>`, webhook }).then((r) => {
    expect(r.status).toBe(200);
    return r.json.requestId as string;
  });

describe('embedded profile: webhooks callers can trust', () => {
  let svc: Svc;
  let secret: string;
  const receiver = new ScriptedReceiver();
  const canary = new ScriptedReceiver();

  beforeAll(async () => {
    await Promise.all([receiver.start(), canary.start()]);
    svc = await startEmbedded(compressed);
    const res = await svc.api.get('/v1/webhooks/secret');
    expect(res.status).toBe(200);
    secret = res.json.secret;
  });
  afterAll(async () => {
    await svc?.app.stop();
    await Promise.all([receiver.stop(), canary.stop()]);
  });

  it('signs every delivery so that a standardwebhooks receiver verifies it, and records the attempt', async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const requestId = await asyncHtml(svc.api, receiver.script('/signed'));
    const [call] = await receiver.waitForCalls('/signed', 1);
    expect(verifyWithStandardWebhooks(secret, call!)).toMatchObject({ requestId, renderStatus: 'SUCCESS' });
    expect(call!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(call!.headers['content-type']).toBe('application/json');
    // A forged body does not verify.
    expect(() => verifyWithStandardWebhooks(secret, { ...call!, raw: call!.raw.replace('SUCCESS', 'FAILED') })).toThrow();

    const view = await deliveries(svc.api, requestId, (v) => v.state === 'DELIVERED', 'the delivery to be recorded');
    expect(view).toMatchObject({ requestId, webhookId: call!.headers['webhook-id'], renderStatus: 'SUCCESS', round: 0 });
    expect(view.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, outcome: 'delivered' })]);
    expect(view.outcomes).toEqual([expect.objectContaining({ outcome: 'DELIVERED', statusCode: 200 })]);
  });

  it('shows deliveries to their tenant only (404 for another tenant)', async () => {
    const requestId = await asyncHtml(svc.api, receiver.script('/tenant-scope'));
    await receiver.waitForCalls('/tenant-scope', 1);
    await svc.admin.post('/admin/v1/tenants', { tenantId: 'other', name: 'Other', plan: 'standard' });
    const key = (await svc.admin.post('/admin/v1/tenants/other/keys', {})).json.apiKey as string;
    const other = apiClient(svc.baseUrl, key);
    const res = await other.get(`/v1/pdf/${requestId}/deliveries`);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('NOT_FOUND');
    // Its own secret differs from the default tenant's.
    expect((await other.get('/v1/webhooks/secret')).json.secret).not.toBe(secret);
  });

  it('retries after a 500 and delivers with the same webhook-id', async () => {
    const requestId = await asyncHtml(svc.api, receiver.script('/500-then-ok', { status: 500 }, { status: 200 }));
    const calls = await receiver.waitForCalls('/500-then-ok', 2);
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    for (const c of calls) verifyWithStandardWebhooks(secret, c);
    const view = await deliveries(svc.api, requestId, (v) => v.state === 'DELIVERED', 'delivered after a retry');
    expect(view.attempts.map((a: any) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, 500, 'retrying'],
      [2, 200, 'delivered'],
    ]);
  });

  it('tells the whole history of a render from the log: request, outcome, each webhook attempt, template and Chromium versions', async () => {
    const tpl = await svc.api.post('/v1/templates', { name: 'history', content: '<p>v1 <%= it.n %></p>' });
    expect(tpl.status).toBe(201);
    const templateId = tpl.json.templateId as string;
    expect((await svc.api.put(`/v1/templates/${templateId}`, { name: 'history', content: '<p>v2 <%= it.n %></p>' })).status).toBe(200);
    const before = new Date(Date.now() - 1000).toISOString();
    const res = await svc.api.post('/v1/pdf/async', {
      templateId,
      data: { n: 1 },
      webhook: receiver.script('/history', { status: 500 }, { status: 200 }),
    });
    expect(res.status).toBe(200);
    const requestId = res.json.requestId as string;
    await deliveries(svc.api, requestId, (v) => v.state === 'DELIVERED', 'delivered after a retry');

    // Each attempt's body carried a link: both are on the log (recorded off the request path, so waited for).
    const history = await historyWith(svc.api, requestId, (types) => types.filter((t) => t === 'LinkIssued').length === 2);
    expect(history.status).toBe(200);
    expect(history.json).toMatchObject({ requestId, renderStatus: 'SUCCESS', template: { templateId, templateVersion: 2 } });
    expect(history.json.chromium).toMatch(/^Chromium \d+\./);
    const types = (history.json.events as { type: string }[]).map((e) => e.type);
    expect(types.filter((t) => t !== 'RenderAttemptStarted' && t !== 'WebhookAttemptStarted' && t !== 'LinkIssued')).toEqual([
      'RenderRequested',
      'RenderSucceeded',
      'WebhookAttempted',
      'WebhookAttempted',
      'WebhookDelivered',
    ]);
    const links = (history.json.events as { type: string; data: any }[]).filter((e) => e.type === 'LinkIssued');
    expect(links.map((e) => [e.data.where, e.data.file])).toEqual([
      ['webhook', 'result'],
      ['webhook', 'result'],
    ]);
    const attempts = (history.json.events as { type: string; data: any }[])
      .filter((e) => e.type === 'WebhookAttempted')
      .map((e) => [e.data.attempt, e.data.statusCode]);
    expect(attempts).toEqual([
      [1, 500],
      [2, 200],
    ]);
    // The document itself is not history: the request's data is not echoed, only its hash and size.
    expect(history.json.events[0].data.source).toEqual({
      kind: 'template',
      templateId,
      templateVersion: 2,
      payload: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) },
    });

    // The listing by time range finds it, with its state; a range before it does not.
    const listed = await svc.api.get(`/v1/renders?from=${encodeURIComponent(before)}&limit=1000`);
    expect(listed.status).toBe(200);
    expect(listed.json.renders).toContainEqual(
      expect.objectContaining({ requestId, renderStatus: 'SUCCESS', mode: 'async', template: { templateId, templateVersion: 2 } }),
    );
    const earlier = await svc.api.get(`/v1/renders?from=2020-01-01T00:00:00Z&to=${encodeURIComponent(before)}`);
    expect(earlier.json.renders.map((r: { requestId: string }) => r.requestId)).not.toContain(requestId);
    const bad = await svc.api.get('/v1/renders?from=yesterday&limit=0&colour=blue');
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['colour', 'from', 'limit']);

    // Another tenant's id is a 404, like an unknown one; its listing does not show the render.
    await svc.admin.post('/admin/v1/tenants', { tenantId: 'history-other', name: 'Other', plan: 'standard' });
    const other = apiClient(svc.baseUrl, (await svc.admin.post('/admin/v1/tenants/history-other/keys', {})).json.apiKey as string);
    expect((await other.get(`/v1/pdf/${requestId}/events`)).status).toBe(404);
    expect((await svc.api.get('/v1/pdf/0199aaaa-0000-7000-8000-000000000000/events')).json.error.code).toBe('NOT_FOUND');
    expect((await other.get(`/v1/renders?from=${encodeURIComponent(before)}`)).json.renders).toEqual([]);
  });

  it('puts each signed link handed out on the history: the sync answer, then every status GET; never the link itself', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>links</p>', signedUrlExpiresIn: 600 });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const sync = await historyWith(svc.api, requestId, (types) => types.includes('LinkIssued'));
    const linksOf = (h: typeof sync) =>
      (h.json.events as { type: string; occurredAt: string; data: any }[]).filter((e) => e.type === 'LinkIssued');
    const [issued] = linksOf(sync);
    expect(issued!.data).toEqual({ where: 'sync', file: 'result', expiresAt: expect.any(String) });
    // The link's lifetime is the one asked for, counted from when it was handed out.
    expect(Date.parse(issued!.data.expiresAt) - Date.parse(issued!.occurredAt)).toBe(600_000);
    // In order: after the outcome it links to.
    const types = (sync.json.events as { type: string }[]).map((e) => e.type);
    expect(types.indexOf('LinkIssued')).toBeGreaterThan(types.indexOf('RenderSucceeded'));

    const status = await svc.api.get(`/v1/pdf/status/${requestId}`);
    expect(status.status).toBe(200);
    const after = await historyWith(svc.api, requestId, (t) => t.filter((x) => x === 'LinkIssued').length === 2);
    expect(linksOf(after).map((e) => e.data.where)).toEqual(['sync', 'status']);
    // The history is an audit of links, not a way to get one: no URL, no signature.
    const text = JSON.stringify(after.json);
    expect(text).not.toContain(String(res.json.signedUrl).split('?')[1]);
    expect(text).not.toContain('signature');
  });

  it('honours Retry-After on a 503, and retries a 429', async () => {
    const a = await asyncHtml(svc.api, receiver.script('/503', { status: 503, headers: { 'retry-after': '2' } }, { status: 200 }));
    const b = await asyncHtml(svc.api, receiver.script('/429', { status: 429 }, { status: 200 }));
    const viewA = await deliveries(svc.api, a, (v) => v.state === 'DELIVERED', 'delivered after the 503');
    const first = viewA.attempts[0];
    expect(first).toMatchObject({ statusCode: 503, outcome: 'retrying' });
    // The recorded decision waited at least what the receiver asked for.
    expect(Date.parse(first.nextAttemptAt) - Date.parse(first.startedAt)).toBeGreaterThanOrEqual(2000);
    const [, second] = receiver.callsTo('/503');
    expect(second!.at).toBeGreaterThanOrEqual(Date.parse(first.nextAttemptAt) - 1000);
    const viewB = await deliveries(svc.api, b, (v) => v.state === 'DELIVERED', 'delivered after the 429');
    expect(viewB.attempts.map((x: any) => x.statusCode)).toEqual([429, 200]);
  });

  it('stops at 410 and never calls that URL again', async () => {
    const url = receiver.script('/gone', { status: 410 });
    const first = await asyncHtml(svc.api, url);
    const view = await deliveries(svc.api, first, (v) => v.state === 'FAILED', 'the 410 to end the delivery');
    expect(view.attempts).toEqual([expect.objectContaining({ statusCode: 410, outcome: 'failed' })]);
    const second = await asyncHtml(svc.api, url, 'after gone');
    const later = await deliveries(svc.api, second, (v) => v.state === 'FAILED', 'the second delivery to be refused');
    expect(later.attempts).toEqual([]);
    expect(later.outcomes[0].reason).toMatch(/gone/);
    expect(receiver.callsTo('/gone')).toHaveLength(1);
  });

  it('never follows a redirect: the canary sees no call', async () => {
    const a = await asyncHtml(svc.api, receiver.script('/redirect-302', { status: 302, headers: { location: canary.url('/canary') } }));
    const b = await asyncHtml(svc.api, receiver.script('/redirect-307', { status: 307, headers: { location: canary.url('/canary') } }));
    for (const id of [a, b]) {
      const view = await deliveries(svc.api, id, (v) => v.state === 'FAILED', 'the redirect to fail the delivery');
      expect(view.attempts).toHaveLength(1);
      expect(view.attempts[0].error).toMatch(/redirect/);
    }
    expect(canary.calls).toHaveLength(0);
  });

  it('gives up a stalled attempt at its time limit and retries', async () => {
    // The receiver stalls 20 s before answering the first call; the attempt limit is 1 s here.
    const requestId = await asyncHtml(svc.api, receiver.script('/stall', { status: 200, stallMs: 20_000 }, { status: 200 }));
    const view = await deliveries(svc.api, requestId, (v) => v.state === 'DELIVERED', 'delivered after a timeout');
    expect(view.attempts.map((x: any) => [x.error ?? null, x.outcome])).toEqual([
      ['timeout', 'retrying'],
      [null, 'delivered'],
    ]);
  });

  it('retries a closed port with back-off, then records the final failure', async () => {
    const closed = await new ScriptedReceiver().start();
    const url = closed.url('/closed');
    await closed.stop();
    const requestId = await asyncHtml(svc.api, url);
    const view = await deliveries(svc.api, requestId, (v) => v.state === 'FAILED', 'the attempts to be exhausted');
    expect(view.attempts).toHaveLength(6);
    expect(view.attempts.every((x: any) => /connection error/.test(x.error))).toBe(true);
    expect(view.outcomes[0].reason).toMatch(/gave up after 6 attempts/);
    // Back-off: each due time lies after the attempt that set it.
    for (const x of view.attempts.slice(0, -1)) expect(Date.parse(x.nextAttemptAt)).toBeGreaterThan(Date.parse(x.startedAt));
  });

  it("does not hold another tenant's delivery behind a failing one (no head-of-line blocking)", async () => {
    await svc.admin.post('/admin/v1/tenants', { tenantId: 'calm', name: 'Calm', plan: 'standard' });
    const calm = apiClient(svc.baseUrl, (await svc.admin.post('/admin/v1/tenants/calm/keys', {})).json.apiKey);
    // Given tenant default's receiver holds every call until its time limit and asks for more
    const stuck = await asyncHtml(svc.api, receiver.script('/hol-stuck', { hold: true }));
    await receiver.waitForCalls('/hol-stuck', 1);
    // When another tenant's result is ready
    const quick = await asyncHtml(calm, receiver.script('/hol-quick'));
    // Then it is delivered while the first is still being retried
    await receiver.waitForCalls('/hol-quick', 1);
    const stuckView = (await svc.api.get(`/v1/pdf/${stuck}/deliveries`)).json;
    expect(stuckView.state).toBe('PENDING');
    expect((await calm.get(`/v1/pdf/${quick}/deliveries`)).json.requestId).toBe(quick);
    // And the first ends on its own, after all its attempts
    await deliveries(svc.api, stuck, (v) => v.state === 'FAILED', 'the stuck delivery to give up');
  });

  it('replays a result through the API: same webhook-id, new timestamp and signature, nothing else changes', async () => {
    const requestId = await asyncHtml(svc.api, receiver.script('/replay'));
    const [original] = await receiver.waitForCalls('/replay', 1);
    await deliveries(svc.api, requestId, (v) => v.state === 'DELIVERED', 'the first delivery');
    const statusBefore = (await svc.api.get(`/v1/pdf/status/${requestId}`)).json;
    // Timestamps are in seconds: let one pass so the replay's must differ.
    const ts = Number(original!.headers['webhook-timestamp']);
    await waitFor(() => Date.now() / 1000 >= ts + 1, { timeoutMs: 3000, description: 'the next second' });

    const res = await svc.api.post('/v1/webhooks/replay', { requestId });
    expect(res.status).toBe(202);
    expect(res.json.requestIds).toEqual([requestId]);
    const [, replayed] = await receiver.waitForCalls('/replay', 2);
    expect(replayed!.headers['webhook-id']).toBe(original!.headers['webhook-id']);
    expect(Number(replayed!.headers['webhook-timestamp'])).toBeGreaterThan(ts);
    expect(replayed!.headers['webhook-signature']).not.toBe(original!.headers['webhook-signature']);
    expect(verifyWithStandardWebhooks(secret, replayed!)).toMatchObject({ requestId, renderStatus: 'SUCCESS' });

    const view = await deliveries(svc.api, requestId, (v) => v.round === 1 && v.state === 'DELIVERED', 'the replay to be recorded');
    expect(view.replays).toEqual([expect.objectContaining({ requestedBy: 'api', replayId: res.json.replayId })]);
    expect(view.outcomes.map((o: any) => [o.round, o.outcome])).toEqual([
      [0, 'DELIVERED'],
      [1, 'DELIVERED'],
    ]);
    const statusAfter = (await svc.api.get(`/v1/pdf/status/${requestId}`)).json;
    expect({ ...statusAfter, signedUrl: '' }).toEqual({ ...statusBefore, signedUrl: '' });
    // Unknown ids and bad ranges are refused.
    expect((await svc.api.post('/v1/webhooks/replay', { requestId: '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0aff' })).status).toBe(404);
    expect((await svc.api.post('/v1/webhooks/replay', { from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' })).status).toBe(400);
  });

  it('signs with both secrets during a rotation overlap: old-only and new-only receivers both verify', async () => {
    const before = (await svc.api.get('/v1/webhooks/secret')).json.secret as string;
    const rotated = await svc.api.post('/v1/webhooks/secret/rotate', {});
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(before);
    expect(rotated.json.previous).toMatchObject({ secret: before, expiresAt: expect.any(String) });
    expect((await svc.api.get('/v1/webhooks/secret')).json).toEqual(rotated.json);

    const requestId = await asyncHtml(svc.api, receiver.script('/rotation'));
    const [call] = await receiver.waitForCalls('/rotation', 1);
    expect(String(call!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWithStandardWebhooks(before, call!)).toMatchObject({ requestId });
    expect(verifyWithStandardWebhooks(rotated.json.secret, call!)).toMatchObject({ requestId });
    secret = rotated.json.secret;
  });

  it('reports a failed render with the documented FAILED body', async () => {
    const broken = await svc.api.post('/v1/templates', { name: 'broken', content: '<p><% throw new Error("broken on purpose") %></p>' });
    expect(broken.status).toBe(201);
    const res = await svc.api.post('/v1/pdf/async', {
      templateId: broken.json.templateId,
      data: {},
      webhook: receiver.script('/failed-body'),
    });
    expect(res.status).toBe(200);
    const [call] = await receiver.waitForCalls('/failed-body', 1);
    expect(verifyWithStandardWebhooks(secret, call!)).toEqual({
      requestId: res.json.requestId,
      renderStatus: 'FAILED',
      signedUrl: '',
      metadata: {},
      error: { code: 'TEMPLATE_ERROR', message: expect.any(String) },
    });
  });
});

describe('embedded profile: a dispatcher killed between sending and recording', () => {
  let svc: Svc;
  const receiver = new ScriptedReceiver();

  beforeAll(async () => {
    await receiver.start();
    // A long attempt limit, so the attempt is surely in flight when the process dies.
    svc = await startEmbedded({ ...compressed, PRESSROOM_WEBHOOK_TIMEOUT_MS: '30000' });
  });
  afterAll(async () => {
    await svc?.app.stop();
    await receiver.stop();
  });

  it('sends the delivery again after a restart, with the same webhook-id', async () => {
    const requestId = await asyncHtml(svc.api, receiver.script('/crash', { hold: true }, { status: 200 }));
    const [first] = await receiver.waitForCalls('/crash', 1);
    // The receiver holds the request: the attempt is sent and not yet recorded. Crash now.
    await svc.app.kill();
    await svc.app.start();
    const calls: Call[] = await receiver.waitForCalls('/crash', 2, 90_000);
    expect(calls[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const secret = (await svc.api.get('/v1/webhooks/secret')).json.secret as string;
    expect(verifyWithStandardWebhooks(secret, calls[1]!)).toMatchObject({ requestId, renderStatus: 'SUCCESS' });
    // Both attempts that reached the receiver are on the record (WebhookAttemptStarted is written
    // before sending): the one cut short by the crash honestly unknown, then the delivered one.
    const view = await deliveries(svc.api, requestId, (v) => v.state === 'DELIVERED', 'the delivery after the restart');
    expect(view.attempts.map((a: any) => [a.attempt, a.outcome, a.statusCode])).toEqual([
      [1, 'unknown', undefined],
      [2, 'delivered', 200],
    ]);
  });
});
