import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { apiClient, download, type ApiClient } from '../support/api-client.ts';
import { readEmbeddedLogLines, startEmbedded } from '../support/embedded-service.ts';
import { pdfText } from '../support/pdf-tools.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

/**
 * Issue 8 item 3, Idempotency-Key on the render endpoints (embedded profile): a retry with the
 * same key, also concurrent, answers the first request's requestId and result and renders once;
 * the same key with another body is 422; keys are per tenant.
 */
describe('embedded profile: Idempotency-Key on render endpoints', () => {
  let svc: Svc;
  let other: ApiClient;
  const receiver = new WebhookReceiver();
  const key = () => `key-${randomBytes(8).toString('hex')}`;
  const keyed = (api: ApiClient, path: string, body: unknown, k: string) => api.call('POST', path, body, { 'idempotency-key': k });

  /**
   * The RenderRequested events on the log that carry this key, read from the embedded log's files
   * (one JSON line per record; the running service owns the log, so the ops CLI cannot open it).
   */
  const requestsWithKey = async (k: string) => {
    return (await readEmbeddedLogLines(svc.dataDir))
      .map((l) => JSON.parse(l).event)
      .filter((e) => e.type === 'RenderRequested' && e.data.idempotencyKey === k);
  };

  beforeAll(async () => {
    await receiver.start();
    svc = await startEmbedded();
    expect((await svc.admin.post('/admin/v1/tenants', { tenantId: 'initech', name: 'Initech', plan: 'standard' })).status).toBe(201);
    other = apiClient(svc.baseUrl, (await svc.admin.post('/admin/v1/tenants/initech/keys', { label: 'e2e' })).json.apiKey);
  });
  afterAll(async () => {
    await svc?.app.stop();
    await receiver.stop();
  });

  it('answers a sync retry with the same requestId and the same document, rendered once', async () => {
    const k = key();
    const body = { html: '<p>idempotent sync</p>' };
    const first = await keyed(svc.api, '/v1/html-to-pdf/sync', body, k);
    expect(first.status).toBe(200);
    // The same body with its members in another order is the same request.
    const again = await keyed(svc.api, '/v1/html-to-pdf/sync', JSON.stringify({ html: body.html }), k);
    expect(again.status).toBe(200);
    const id = first.headers.get('x-request-id');
    expect(again.headers.get('x-request-id')).toBe(id);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    expect(await pdfText((await download(again.json.signedUrl)).bytes)).toContain('idempotent sync');
    expect((await requestsWithKey(k)).map((e) => e.requestId)).toEqual([id]);
  });

  it('answers concurrent async attempts with one requestId, one render and one webhook', async () => {
    const k = key();
    const path = `/idem-${k}`;
    const body = { html: '<p>concurrent</p>', webhook: receiver.url(path) };
    const answers = await Promise.all(Array.from({ length: 6 }, () => keyed(svc.api, '/v1/html-to-pdf/async', body, k)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const ids = new Set(answers.map((a) => a.json.requestId));
    expect(ids.size).toBe(1);
    const [requestId] = [...ids];
    await receiver.waitForCall(path);
    const status = await waitFor(
      async () => {
        const r = await svc.api.get(`/v1/pdf/status/${requestId}`);
        return r.json?.renderStatus === 'SUCCESS' ? r : undefined;
      },
      { timeoutMs: 60_000, description: 'the render to finish' },
    );
    expect(status.json.requestId).toBe(requestId);
    expect((await requestsWithKey(k)).map((e) => e.requestId)).toEqual([requestId]);
    // A later retry (the client never saw an answer) gets the same request, not a second render.
    const late = await keyed(svc.api, '/v1/html-to-pdf/async', body, k);
    expect(late.json).toEqual({ requestId });
    expect((await requestsWithKey(k)).length).toBe(1);
    expect(receiver.calls.filter((c) => c.path === path)).toHaveLength(1);
  });

  it('refuses the same key with another body, or on another endpoint, with 422 in the error shape, and appends nothing', async () => {
    const k = key();
    const first = await keyed(svc.api, '/v1/html-to-pdf/sync', { html: '<p>one</p>' }, k);
    expect(first.status).toBe(200);
    const otherBody = await keyed(svc.api, '/v1/html-to-pdf/sync', { html: '<p>two</p>' }, k);
    expect(otherBody.status).toBe(422);
    expect(otherBody.json).toEqual({ message: expect.any(String), error: { code: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String) } });
    const otherEndpoint = await keyed(svc.api, '/v1/html-to-pdf/async', { html: '<p>one</p>', webhook: receiver.url('/never') }, k);
    expect(otherEndpoint.status).toBe(422);
    expect((await requestsWithKey(k)).length).toBe(1);
  });

  it('keeps keys per tenant: another tenant’s same key is its own request', async () => {
    const k = key();
    const body = { html: '<p>tenant scoped</p>' };
    const mine = await keyed(svc.api, '/v1/html-to-pdf/sync', body, k);
    const theirs = await keyed(other, '/v1/html-to-pdf/sync', body, k);
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('x-request-id')).not.toBe(mine.headers.get('x-request-id'));
    expect(theirs.headers.get('idempotency-replayed')).toBeNull();
  });

  it('refuses a malformed key with 400 and renders nothing', async () => {
    const res = await keyed(svc.api, '/v1/html-to-pdf/sync', { html: '<p>x</p>' }, 'k'.repeat(256));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'Idempotency-Key' }] });
  });
});
