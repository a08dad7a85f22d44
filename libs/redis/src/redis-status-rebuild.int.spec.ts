import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  REPLAY_BATCH,
  createEventFactory,
  createFileEventLog,
  replayStatusView,
  selfRebuildingStatusView,
  systemClock,
  topicNames,
  uuidV7Ids,
  type EventLog,
  type StatusView,
} from '@pressroom/core';
import { createRedisStatusView } from './redis-status-view.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');

/**
 * Issue 8 and the log as the record: the status view is rebuilt from the log when Redis lost its
 * data. Redis can lose it again while that rebuild runs (a restart without persistence, a
 * FLUSHALL, a failover to an empty replica): what the rebuild wrote before the loss is gone, and
 * the view must not then be marked built, or a read of an accepted render answers 404 for good
 * instead of rebuilding. Here the loss is the test's own key prefix unlinked right after the
 * rebuild's first batch was applied.
 */
describe('the status view in Redis, losing its data while it is rebuilt', () => {
  const topics = topicNames(`straddle-${randomUUID().slice(0, 8)}`);
  const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
  const keyPrefix = `test:${randomUUID()}:`;
  const admin = new Redis(url);
  const ids = Array.from({ length: REPLAY_BATCH + 200 }, () => randomUUID());
  let dir: string;
  let log: EventLog;
  const views: StatusView[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pressroom-straddle-'));
    log = await createFileEventLog({ dir });
    // More accepted requests than one replay batch: the first batch is in Redis before the rest is read.
    await log.append(
      topics.requestedAsync,
      ids.map((requestId) =>
        event(
          'RenderRequested',
          { requestId, tenantId: 'acme' },
          { mode: 'async', source: { kind: 'html', html: '<p>x</p>' }, output: 'pdf', storage: { kind: 'default' } },
        ),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(views.map((v) => v.close()));
    await unlinkByPrefix(admin, keyPrefix);
    await admin.quit();
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('rebuilds again rather than marking built a view that lost the first batch, and answers the first request', async () => {
    const redisView = createRedisStatusView({ url, keyPrefix, waits: false });
    views.push(redisView);
    // Redis loses everything under the prefix right after the replay's first batch is written.
    let losses = 0;
    const losingOnce: StatusView = {
      ...redisView,
      applyMany: async (events) => {
        await redisView.applyMany(events);
        if (losses === 0) {
          losses++;
          await unlinkByPrefix(admin, keyPrefix);
        }
      },
    };
    const view = selfRebuildingStatusView(losingOnce, { log, topics });
    // A read of the first request finds nothing, so it rebuilds: the loss comes mid-rebuild.
    const first = await view.get(ids[0]!);
    expect(losses).toBe(1);
    expect(first).toMatchObject({ requestId: ids[0], tenantId: 'acme', state: 'ONGOING' });
    // And the view is marked built with every request in it, the first batch's included.
    expect(await redisView.isBuilt()).toBe(true);
    const all = await redisView.getMany(ids);
    expect(all.filter((entry) => entry === undefined)).toHaveLength(0);
    // No replay note is left behind.
    expect(await admin.keys(`${keyPrefix}*:replay:*`)).toEqual([]);
  });

  it('answers a request another process rebuilt between this read and its marker check (no stale 404)', async () => {
    // After a FLUSHALL every process that misses starts a replay. Here this process's read misses,
    // then another process's replay writes the view and marks it built before this process
    // checks the marker: the check finds the view built, so no rebuild runs here, and the miss
    // must not stand (it was the intermittent 404 of distributed-redis-loss).
    await unlinkByPrefix(admin, keyPrefix);
    const redisView = createRedisStatusView({ url, keyPrefix, waits: false });
    const other = createRedisStatusView({ url, keyPrefix, waits: false });
    views.push(redisView, other);
    let raced = false;
    const racing: StatusView = {
      ...redisView,
      get: async (requestId) => {
        const found = await redisView.get(requestId);
        if (!raced) {
          raced = true;
          await replayStatusView(other, { log, topics });
        }
        return found;
      },
    };
    const view = selfRebuildingStatusView(racing, { log, topics });
    const answer = await view.get(ids[1]!);
    expect(raced).toBe(true);
    expect(await redisView.isBuilt()).toBe(true);
    expect(answer).toMatchObject({ requestId: ids[1], tenantId: 'acme', state: 'ONGOING' });
  });
});
