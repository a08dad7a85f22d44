import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { statusViewContract } from '@pressroom/testing';
import { createRedisStatusView } from './redis-status-view.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';
import { redisSpace } from './test-support/redis-space.ts';

const url = inject('REDIS_URL');
const uniquePrefix = () => `test:${randomUUID()}:`;

statusViewContract('redis', { createSpace: redisSpace(url, (keyPrefix) => createRedisStatusView({ url, keyPrefix })) });

describe('RedisStatusView specifics', () => {
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(url);
  });
  afterAll(async () => {
    await admin.quit();
  });

  const requested = (requestId: string) => ({
    eventId: randomUUID(),
    type: 'RenderRequested' as const,
    version: 1 as const,
    occurredAt: '2030-01-01T00:00:00.000Z',
    requestId,
    tenantId: 'acme',
    data: {
      mode: 'async' as const,
      source: { kind: 'html' as const, html: 'x' },
      output: 'pdf' as const,
      storage: { kind: 'default' as const },
    },
  });

  it('stores the entry as JSON under <prefix>status:<requestId> with the retention as TTL', async () => {
    const keyPrefix = uniquePrefix();
    const view = createRedisStatusView({ url, keyPrefix, retentionSeconds: 120 });
    try {
      const id = randomUUID();
      await view.apply(requested(id));
      const raw = await admin.get(`${keyPrefix}status:${id}`);
      expect(JSON.parse(raw!)).toMatchObject({ requestId: id, state: 'ONGOING' });
      const ttl = await admin.pttl(`${keyPrefix}status:${id}`);
      expect(ttl).toBeGreaterThan(110_000);
      expect(ttl).toBeLessThanOrEqual(120_000);
    } finally {
      await view.close();
      await unlinkByPrefix(admin, keyPrefix);
    }
  });

  it('publishes the requestId once, on the terminal transition only', async () => {
    // Given a listener on the view's channel
    const keyPrefix = uniquePrefix();
    const view = createRedisStatusView({ url, keyPrefix });
    const listener = new Redis(url);
    const heard: string[] = [];
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    await listener.subscribe(`${keyPrefix}status-events`);
    try {
      const id = randomUUID();
      const done = {
        eventId: randomUUID(),
        type: 'RenderSucceeded' as const,
        version: 1 as const,
        occurredAt: '2030-01-01T00:00:01.000Z',
        requestId: id,
        tenantId: 'acme',
        data: {
          mode: 'async' as const,
          artifact: { target: { kind: 'default' as const }, key: `acme/${id}.pdf`, contentType: 'application/pdf', bytes: 1 },
          executionMs: 5,
          worker: 'w',
        },
      };
      // When the render is requested, succeeds, and everything is redelivered concurrently
      await view.apply(requested(id));
      await Promise.all([view.apply(done), view.apply(done), view.apply(requested(id)), view.apply(done)]);
      // Then a ping round-trip later, exactly one message was published
      await listener.ping();
      await admin.publish(`${keyPrefix}status-events`, 'fence');
      await expect.poll(() => heard.includes('fence'), { timeout: 5_000 }).toBe(true);
      expect(heard.filter((m) => m === id)).toEqual([id]);
    } finally {
      await listener.quit();
      await view.close();
      await unlinkByPrefix(admin, keyPrefix);
    }
  });

  it('clear() deletes only keys with its own prefix', async () => {
    const mine = uniquePrefix();
    const other = uniquePrefix();
    const view = createRedisStatusView({ url, keyPrefix: mine });
    const neighbour = createRedisStatusView({ url, keyPrefix: other });
    try {
      const id = randomUUID();
      await view.apply(requested(id));
      await neighbour.apply(requested(id));
      await admin.set(`${mine}catalog:tenant:acme`, '{}'); // same prefix, not a status entry
      await view.clear();
      expect(await view.get(id)).toBeUndefined();
      expect((await neighbour.get(id))?.state).toBe('ONGOING');
      expect(await admin.get(`${mine}catalog:tenant:acme`)).toBe('{}');
    } finally {
      await Promise.all([view.close(), neighbour.close()]);
      await unlinkByPrefix(admin, mine);
      await unlinkByPrefix(admin, other);
    }
  });

  it('settles pending waiters with the current entry on close', async () => {
    const keyPrefix = uniquePrefix();
    const view = createRedisStatusView({ url, keyPrefix });
    const id = randomUUID();
    await view.apply(requested(id));
    const waiting = view.waitForTerminal(id, 60_000);
    const started = Date.now();
    await view.close();
    expect((await waiting)?.state).toBe('ONGOING');
    expect(Date.now() - started).toBeLessThan(5_000);
    await unlinkByPrefix(admin, keyPrefix);
  });

  it('catches up on a terminal transition published while its subscriber was reconnecting', async () => {
    // Given a waiter whose view's subscriber connection is then killed
    const keyPrefix = uniquePrefix();
    const waiterView = createRedisStatusView({ url, keyPrefix });
    const writerView = createRedisStatusView({ url, keyPrefix });
    try {
      const id = randomUUID();
      await waiterView.apply(requested(id));
      await waiterView.ping();
      const started = Date.now();
      const waiting = waiterView.waitForTerminal(id, 15_000);
      const clients = await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub');
      const ours = String(clients)
        .split('\n')
        .find((line) => line.includes(`name=pressroom-status-events@${keyPrefix}`));
      const clientId = /\bid=(\d+)/.exec(ours ?? '')?.[1];
      expect(clientId, 'the subscriber connection is listed').toBeDefined();
      await admin.call('CLIENT', 'KILL', 'ID', clientId!);
      // When the render completes at once, before ioredis reconnects (its first retry waits 50 ms)
      await writerView.apply({
        ...requested(id),
        type: 'RenderFailed',
        data: { mode: 'async', error: { code: 'RENDER_ERROR', message: 'x' }, executionMs: 1, worker: 'w' },
      });
      // Then the waiter still wakes on the reconnect, long before its timeout
      expect((await waiting)?.state).toBe('FAILED');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await Promise.all([waiterView.close(), writerView.close()]);
      await unlinkByPrefix(admin, keyPrefix);
    }
  });
});
