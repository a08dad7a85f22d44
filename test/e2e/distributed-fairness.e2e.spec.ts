import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { apiClient, download, type ApiClient } from '../support/api-client.ts';
import { isPdf } from '../support/pdf-tools.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import type { AppProcess } from '../support/service-process.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

const spinForever = '<p>x</p><script>while (true) {}</script>';
const spinFor = (ms: number) => `<p>slow</p><script>const end = Date.now() + ${ms}; while (Date.now() < end) {}</script>`;

/** Records on a topic (every partition): appended = accepted by the ingress. */
async function recordsOn(topic: string): Promise<number> {
  const admin = new Kafka({ brokers: inject('KAFKA_BROKERS').split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Issue 7 point 5 on the distributed profile: one render worker with two pages, its Kafka
 * consumer reading ahead past the hostile tenant's records (on whichever partition they sit).
 */
describe('distributed profile: fair capacity across tenants', () => {
  let env: Env;
  let worker: AppProcess;
  let hostile: ApiClient;
  let calm: ApiClient;
  const receiver = new WebhookReceiver();
  const syncWaitMs = 15_000;

  const tenant = async (tenantId: string) => {
    expect((await env.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan: 'standard' })).status).toBe(201);
    return apiClient(`http://127.0.0.1:${env.ingressPort}`, (await env.admin.post(`/admin/v1/tenants/${tenantId}/keys`, {})).json.apiKey);
  };

  beforeAll(async () => {
    await receiver.start();
    env = await distributedEnv({
      PRESSROOM_SYNC_TIMEOUT_MS: String(syncWaitMs),
      PRESSROOM_RENDER_TIMEOUT_MS: '90000',
      PRESSROOM_RENDER_PAGES: '2',
    });
    await env.start('ingress', env.ingressPort);
    await env.start('status-projector');
    worker = await env.start('render-worker');
    hostile = await tenant('hostile');
    calm = await tenant('calm');
  });
  afterAll(async () => {
    await worker?.kill(); // its renders never end on their own
    await env?.stopAll();
    await receiver.stop();
  });

  it("answers another tenant's one-line sync render with 200 while one standard tenant floods the worker", async () => {
    const quietStart = performance.now();
    const quiet = await calm.post('/v1/html-to-pdf/sync', { html: '<p>quiet</p>' });
    const quietMs = Math.round(performance.now() - quietStart);
    expect(quiet.status).toBe(200);

    // Given the hostile tenant's two never-ending sync renders and its async flood, all accepted
    const hostileSync = [1, 2].map(() => hostile.post('/v1/html-to-pdf/sync', { html: spinForever }).catch((e: Error) => e));
    const webhook = receiver.url('/hostile');
    const accepted = await Promise.all([
      ...[1, 2, 3].map(() => hostile.post('/v1/html-to-pdf/async', { html: spinForever, webhook })),
      ...[1, 2, 3].map(() => hostile.post('/v1/html-to-pdf/async', { html: spinFor(3_000), webhook })),
    ]);
    expect(accepted.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const syncTopic = `${env.env.PRESSROOM_TOPIC_PREFIX}.render.requested.sync`;
    await waitFor(async () => (await recordsOn(syncTopic)) === 3, {
      timeoutMs: 10_000,
      description: 'the quiet and both hostile sync requests on the log',
    });
    await worker.waitForLog((l) => l.msg === 'render started' && l.tenantId === 'hostile');

    // When the calm tenant asks for a one-line sync render
    const floodStart = performance.now();
    const res = await calm.post('/v1/html-to-pdf/sync', { html: '<p>hello from calm</p>' });
    const floodMs = Math.round(performance.now() - floodStart);

    // Then it gets its file within the sync wait
    expect(res.status).toBe(200);
    expect(isPdf((await download(res.json.signedUrl)).bytes)).toBe(true);
    console.info(
      `distributed: calm tenant's sync render ${quietMs} ms alone, ${floodMs} ms during the hostile flood (sync wait ${syncWaitMs} ms)`,
    );
    expect((await Promise.all(hostileSync)).map((r) => ('status' in r ? r.status : r.message))).toEqual([202, 202]);
  });
});
