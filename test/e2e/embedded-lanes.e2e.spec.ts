import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { spinFor } from '../support/fair-capacity-scenario.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;
interface HistoryEvent {
  type: string;
  occurredAt: string;
}

/**
 * Issue 13 (the lanes): a backlog of async renders must not slow a sync caller. Measured by
 * `npm run bench -- --backlog 1000` (sync p95 1.65x idle before: an async render started in every
 * gap between two sync requests, took the tenant's slot or the CPU beside them). What a user can
 * check is the order on each render's history: no async render starts while a sync render is
 * between its request and its outcome, and the async backlog still drains once the sync calls stop.
 */
describe('embedded profile: async renders give way to sync callers', () => {
  let svc: Svc;
  let batch: ApiClient;
  let interactive: ApiClient;
  const receiver = new WebhookReceiver();

  const tenant = async (tenantId: string) => {
    expect((await svc.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan: 'standard' })).status).toBe(201);
    return apiClient(svc.baseUrl, (await svc.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'e2e' })).json.apiKey);
  };
  const history = async (api: ApiClient, id: string): Promise<HistoryEvent[]> => {
    const res = await api.get(`/v1/pdf/${id}/events`);
    expect(res.status).toBe(200);
    return res.json.events as HistoryEvent[];
  };
  const at = (events: HistoryEvent[], type: string) => events.filter((e) => e.type === type).map((e) => Date.parse(e.occurredAt));

  beforeAll(async () => {
    await receiver.start();
    svc = await startEmbedded(); // default settings: three pages, the async lane's yield
    batch = await tenant('batch');
    interactive = await tenant('interactive');
  });
  afterAll(async () => {
    await svc?.app.stop();
    await receiver.stop();
  });

  it('starts no async render while a sync render is under way, and renders the backlog after', async () => {
    // Given a backlog of slow async renders, one of them rendering
    const asyncIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await batch.post('/v1/html-to-pdf/async', { html: spinFor(300), webhook: receiver.url('/batch') });
      expect(res.status).toBe(200);
      asyncIds.push(res.json.requestId as string);
    }
    await svc.app.waitForLog((l) => l.msg === 'render started' && l.tenantId === 'batch');

    // When another tenant makes sync calls one after the other
    const syncIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await interactive.post('/v1/html-to-pdf/sync', { html: spinFor(150) });
      expect(res.status).toBe(200);
      expect(res.json.signedUrl).toMatch(/^http/);
      syncIds.push(res.headers.get('x-request-id') ?? '');
    }

    // Then every sync call was answered, and no async attempt started between a sync request and its outcome
    const busy = await Promise.all(
      syncIds.map(async (id) => {
        const events = await history(interactive, id);
        return { id, from: at(events, 'RenderRequested')[0] as number, to: at(events, 'RenderSucceeded')[0] as number };
      }),
    );
    for (const b of busy) expect(b.to, `sync render ${b.id} has its request and outcome`).toBeGreaterThanOrEqual(b.from);
    // And the backlog drains once the sync calls stop
    const asyncHistories = await waitFor(
      async () => {
        const all = await Promise.all(asyncIds.map((id) => history(batch, id)));
        return all.every((events) => at(events, 'RenderSucceeded').length === 1) ? all : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'every async render to succeed' },
    );
    const startedDuringSync = asyncHistories
      .flatMap((events) => at(events, 'RenderAttemptStarted'))
      .filter((t) => busy.some((b) => t > b.from && t < b.to));
    expect(startedDuringSync).toEqual([]);
  }, 120_000);
});
