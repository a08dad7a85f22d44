import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deliveryStoreContract, requestEvent } from '@pressroom/testing';
import { createRedisDeliveryStore } from './redis-delivery-store.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';
import { redisSpace } from './test-support/redis-space.ts';

const url = inject('REDIS_URL');

deliveryStoreContract('redis', { createSpace: redisSpace(url, (keyPrefix) => createRedisDeliveryStore({ url, keyPrefix })) });

describe('redis deliveries: a settled record expires, a pending one stays, and the completed results go with them', () => {
  const keyPrefix = `test:${randomUUID()}:`;
  const admin = new Redis(url);
  const store = createRedisDeliveryStore({ url, keyPrefix, settledRetentionMs: 60_000 });
  // Another store whose settled records live one second (7 days by default)
  const quickPrefix = `test:${randomUUID()}:`;
  const quick = createRedisDeliveryStore({ url, keyPrefix: quickPrefix, settledRetentionMs: 1_000 });
  afterAll(async () => {
    await Promise.all([store.close(), quick.close()]);
    await unlinkByPrefix(admin, keyPrefix);
    await unlinkByPrefix(admin, quickPrefix);
    await admin.quit();
  });
  const tenantId = 'tenant-ttl';
  const hookUrl = 'https://hooks.example.com/ttl';
  const at = (requestId: string, occurredAt: string) => ({ requestId, tenantId, occurredAt });
  const hook = (requestId: string, round = 0) => ({ webhookId: `msg_${requestId}`, url: hookUrl, round, renderStatus: 'SUCCESS' as const });
  const succeeded = (requestId: string, occurredAt = '2030-01-01T00:00:02.000Z') =>
    requestEvent('RenderSucceeded', at(requestId, occurredAt), {
      mode: 'async',
      webhook: hookUrl,
      artifact: { target: { kind: 'default' }, key: `${tenantId}/${requestId}.pdf`, contentType: 'application/pdf', bytes: 1 },
      executionMs: 5,
      worker: 'ttl',
    });
  const delivered = (requestId: string, round = 0, occurredAt = '2030-01-01T00:00:04.000Z') =>
    requestEvent('WebhookDelivered', at(requestId, occurredAt), {
      ...hook(requestId, round),
      statusCode: 200,
      durationMs: 3,
      attempts: 1,
    });
  const pttl = (requestId: string) => admin.pttl(`${keyPrefix}delivery:record:${requestId}`);

  it('keeps a pending delivery for ever, and lets a delivered one expire after the retention; a replay makes it pending again', async () => {
    // Given a completed async render whose webhook is not yet delivered
    const id = randomUUID();
    await store.apply(succeeded(id));
    // Then its record has no expiry (its schedule entry needs it)
    expect(await pttl(id)).toBe(-1);

    // When the webhook is delivered
    await store.apply(delivered(id));
    // Then the record expires within the settled retention
    const ttl = await pttl(id);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect((await store.get(id))?.events).toHaveLength(1);

    // When a replay starts a new round, the record is pending again and stays
    await store.apply(
      requestEvent('WebhookReplayRequested', at(id, '2030-01-02T00:00:00.000Z'), { requestedBy: 'api', replayId: randomUUID() }),
    );
    expect(await pttl(id)).toBe(-1);
    // And once the new round is delivered it may expire again
    await store.apply(delivered(id, 1));
    expect(await pttl(id)).toBeGreaterThan(0);

    // A replay of a request whose record expired has nothing to send: what it writes expires too
    const gone = randomUUID();
    await store.apply(
      requestEvent('WebhookReplayRequested', at(gone, '2030-01-02T00:00:00.000Z'), { requestedBy: 'api', replayId: randomUUID() }),
    );
    expect(await pttl(gone)).toBeGreaterThan(0);
    // And when its completion comes after all (a rebuild reads the topics in no joint order), it is pending again
    await store.apply(succeeded(gone));
    expect(await pttl(gone)).toBe(-1);
  });

  it('keeps no index of completed results for ever, and a replay by range lists only results whose record is still there', async () => {
    // Given two results completed within the last minute: one delivered (settled: its record expires), one still pending
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const [settled, pending] = [randomUUID(), randomUUID()];
    await quick.apply(succeeded(settled, iso(now - 60_000)));
    await quick.apply(delivered(settled, 0, iso(now - 59_000)));
    await quick.apply(succeeded(pending, iso(now - 50_000)));
    expect(await quick.listCompleted(tenantId, now - 120_000, now)).toEqual([settled, pending]);

    // Then every key of the completed results' index expires (one hash per tenant grew for ever)
    const indexKeys = await admin.keys(`${quickPrefix}delivery:completed*`);
    expect(indexKeys.length).toBeGreaterThan(0);
    for (const key of indexKeys) expect(await admin.pttl(key)).toBeGreaterThan(0);

    // When the settled record has expired
    await expect.poll(() => admin.exists(`${quickPrefix}delivery:record:${settled}`), { timeout: 5_000, interval: 100 }).toBe(0);
    // Then a replay of that minute lists only the result that can still be delivered (the other would go to nobody)
    expect(await quick.listCompleted(tenantId, now - 120_000, now)).toEqual([pending]);
  });
});
