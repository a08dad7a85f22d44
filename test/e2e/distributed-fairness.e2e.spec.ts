import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { floodThenCalmSync, spinFor, spinForever } from '../support/fair-capacity-scenario.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import type { AppProcess } from '../support/service-process.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

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
    const syncTopic = `${env.env.PRESSROOM_TOPIC_PREFIX}.render.requested.sync`;
    await floodThenCalmSync({
      label: 'distributed',
      hostile,
      calm,
      receiver,
      syncWaitMs,
      hostileAsync: [spinForever, spinForever, spinForever, spinFor(3_000), spinFor(3_000), spinFor(3_000)],
      // the quiet request and both hostile sync ones
      hostileSyncOnLog: () =>
        waitFor(async () => (await recordsOn(syncTopic)) === 3, {
          timeoutMs: 10_000,
          description: 'the quiet and both hostile sync requests on the log',
        }),
      hostileRendering: () => worker.waitForLog((l) => l.msg === 'render started' && l.tenantId === 'hostile'),
    });
  });
});
