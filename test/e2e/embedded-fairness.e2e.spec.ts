import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { readEmbeddedLogLines, startEmbedded } from '../support/embedded-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { floodThenCalmSync, spinFor, spinForever } from '../support/fair-capacity-scenario.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

/**
 * Issue 7 point 5: one tenant's hostile or slow renders must not push another tenant's sync
 * render past the sync wait. The service runs with two pages (the hostile tenant's one and one more); the sync wait is
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
    const lines = await readEmbeddedLogLines(svc.dataDir, ['pressroom.render.requested.sync']);
    return lines.filter((line) => line.includes(`"tenantId":"${tenantId}"`)).length;
  };

  beforeAll(async () => {
    await receiver.start();
    svc = await startEmbedded({
      PRESSROOM_RENDER_PAGES: '2',
      PRESSROOM_SYNC_TIMEOUT_MS: String(syncWaitMs),
      PRESSROOM_RENDER_TIMEOUT_MS: '90000',
    });
    hostile = await tenant('hostile');
    calm = await tenant('calm');
  });
  afterAll(async () => {
    await svc?.app.kill();
    await receiver.stop();
  });

  it("answers another tenant's one-line sync render with 200 while one standard tenant floods the service", async () => {
    // (the process is killed in the next test with the flood still open: its outcome is read before)
    const outcome = await floodThenCalmSync({
      label: 'embedded',
      hostile,
      calm,
      receiver,
      syncWaitMs,
      hostileAsync: [spinForever, spinForever, spinFor(1_500), spinFor(1_500)],
      hostileSyncOnLog: () =>
        waitFor(async () => (await syncRequestsOnLog('hostile')) === 2, {
          timeoutMs: 10_000,
          description: 'both hostile sync requests on the log',
        }),
      hostileRendering: () => svc.app.waitForLog((l) => l.msg === 'render started' && l.tenantId === 'hostile'),
    });
    calmId = outcome.calm.headers.get('x-request-id') ?? '';
    for (const r of [...outcome.hostileSync, ...outcome.hostileAsync]) hostileIds.push(r.json.requestId as string);
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
