import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, download, type ApiClient } from '../support/api-client.ts';
import { isPdf } from '../support/pdf-tools.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

/** A page that never finishes: it holds its render slot until the render time limit. */
const spinForever = '<p>x</p><script>while (true) {}</script>';
/** Slow but finishing: busy for a few seconds, then done. */
const spinFor = (ms: number) => `<p>slow</p><script>const end = Date.now() + ${ms}; while (Date.now() < end) {}</script>`;

/**
 * Issue 7 point 5: one tenant's hostile or slow renders must not push another tenant's sync
 * render past the sync wait. The service runs with its default two pages; the sync wait is
 * short, the render time limit long, so a hostile render holds its page for the whole test.
 */
describe('embedded profile: fair capacity across tenants', () => {
  let svc: Svc;
  let hostile: ApiClient;
  let calm: ApiClient;
  const receiver = new WebhookReceiver();
  const syncWaitMs = 10_000;
  /** The hostile tenant's requests, and the calm tenant's flood-time one, for the crash case. */
  const hostileIds: string[] = [];
  let calmId = '';

  const tenant = async (tenantId: string) => {
    expect((await svc.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan: 'standard' })).status).toBe(201);
    return apiClient(svc.baseUrl, (await svc.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'e2e' })).json.apiKey);
  };
  /** Requests of a tenant on the sync lane's log file (appended = accepted by the ingress). */
  const syncRequestsOnLog = async (tenantId: string) => {
    const text = await readFile(join(svc.dataDir, 'log', 'topics', 'pressroom.render.requested.sync.log'), 'utf8').catch(() => '');
    return text.split('\n').filter((line) => line.includes(`"tenantId":"${tenantId}"`)).length;
  };

  beforeAll(async () => {
    await receiver.start();
    svc = await startEmbedded({ PRESSROOM_SYNC_TIMEOUT_MS: String(syncWaitMs), PRESSROOM_RENDER_TIMEOUT_MS: '90000' });
    hostile = await tenant('hostile');
    calm = await tenant('calm');
  });
  afterAll(async () => {
    await svc?.app.kill();
    await receiver.stop();
  });

  it("answers another tenant's one-line sync render with 200 while one standard tenant floods the service", async () => {
    // Without the flood: the calm tenant's figure to compare with
    const quietStart = performance.now();
    const quiet = await calm.post('/v1/html-to-pdf/sync', { html: '<p>quiet</p>' });
    const quietMs = Math.round(performance.now() - quietStart);
    expect(quiet.status).toBe(200);

    // Given the hostile tenant's two concurrent never-ending sync renders, plus never-ending and
    // slow-but-finishing async ones, all accepted
    // (the process is killed at the end with these still open: their outcome is read before)
    const hostileSync = [1, 2].map(() => hostile.post('/v1/html-to-pdf/sync', { html: spinForever }).catch((e: Error) => e));
    const webhook = receiver.url('/hostile');
    const accepted = await Promise.all([
      hostile.post('/v1/html-to-pdf/async', { html: spinForever, webhook }),
      hostile.post('/v1/html-to-pdf/async', { html: spinForever, webhook }),
      hostile.post('/v1/html-to-pdf/async', { html: spinFor(1_500), webhook }),
      hostile.post('/v1/html-to-pdf/async', { html: spinFor(1_500), webhook }),
    ]);
    expect(accepted.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await waitFor(async () => (await syncRequestsOnLog('hostile')) === 2, {
      timeoutMs: 10_000,
      description: 'both hostile sync requests on the log',
    });
    await svc.app.waitForLog((l) => l.msg === 'render started' && l.tenantId === 'hostile');

    // When the calm tenant asks for a one-line sync render
    const floodStart = performance.now();
    const res = await calm.post('/v1/html-to-pdf/sync', { html: '<p>hello from calm</p>' });
    const floodMs = Math.round(performance.now() - floodStart);

    // Then it gets its file, not a 202 after the sync wait
    expect(res.status).toBe(200);
    calmId = res.headers.get('x-request-id') ?? '';
    const file = await download(res.json.signedUrl);
    expect(isPdf(file.bytes)).toBe(true);
    console.info(`calm tenant's sync render: ${quietMs} ms alone, ${floodMs} ms during the hostile flood (sync wait ${syncWaitMs} ms)`);

    // And the hostile tenant's own sync renders are what waits (202 after the sync wait)
    const syncAnswers = await Promise.all(hostileSync);
    expect(syncAnswers.map((r) => ('status' in r ? r.status : r.message))).toEqual([202, 202]);
    for (const r of [...syncAnswers, ...accepted]) if ('json' in r) hostileIds.push(r.json.requestId as string);
  });

  it('loses none of the requests it read ahead when killed mid-flood: after a restart every one ends', async () => {
    // Given the flood above still running or waiting (the calm tenant's render committed or not)
    expect(hostileIds).toHaveLength(6);
    // When the process is killed and comes back with a shorter render time limit
    await svc.app.kill();
    svc.app.env.PRESSROOM_RENDER_TIMEOUT_MS = '4000';
    await svc.app.start();
    // Then every hostile request ends: the never-ending ones fail on the time limit, the slow ones succeed
    const outcomes = await waitFor(
      async () => {
        const states = await Promise.all(hostileIds.map(async (id) => (await hostile.get(`/v1/pdf/status/${id}`)).json));
        return states.every((st) => st.renderStatus !== 'ONGOING') ? states : undefined;
      },
      { timeoutMs: 150_000, intervalMs: 1_000, description: 'every hostile request to end' },
    );
    expect(outcomes.map((o) => (o.renderStatus === 'SUCCESS' ? 'SUCCESS' : o.error.code))).toEqual([
      'RENDER_TIMEOUT',
      'RENDER_TIMEOUT',
      'RENDER_TIMEOUT',
      'RENDER_TIMEOUT',
      'SUCCESS',
      'SUCCESS',
    ]);
    // And the calm tenant's render is still there (rendered again at most, never lost)
    expect((await calm.get(`/v1/pdf/status/${calmId}`)).json.renderStatus).toBe('SUCCESS');
  }, 240_000);
});
