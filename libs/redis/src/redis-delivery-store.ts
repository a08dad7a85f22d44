import type { Redis } from 'ioredis';
import {
  DELIVERY_SCHEDULE,
  LEGACY_DELIVERY_DOCUMENTS,
  deliveryStoreOn,
  silentLogger,
  type DeliverySchedule,
  type DeliveryStore,
  type Logger,
} from '@pressroom/core';
import { connectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';
import { createRedisDocumentStore } from './redis-document-store.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';
import { DEFAULT_STATUS_RETENTION_SECONDS } from './redis-status-view.ts';

const guard = redisGuard('deliveries store');

export interface RedisDeliveryStoreOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
  /**
   * How long a settled record (delivered, failed or withdrawn: nothing left to send) stays after
   * its last write; a pending one stays until it settles. Default: as long as the status view
   * keeps a request's entry (`DEFAULT_STATUS_RETENTION_SECONDS`). 0: for ever.
   */
  settledRetentionMs?: number;
}

/**
 * The distributed profile's deliveries, shared by every dispatcher and ingress: the delivery
 * projections' documents in a Redis document store (see redis-document-store.ts for the
 * compare-and-set) and the schedule beside them, on one connection. Layout:
 *
 *   <prefix>delivery:record:<requestId>       the DeliveryRecord as JSON (completion, webhook events);
 *                                             expires settledRetentionMs after its last write once
 *                                             settled (~2.5 KB a webhook render otherwise kept for ever)
 *   <prefix>delivery:completed-day:<tenantId>:<day>
 *                                             hash requestId → when it completed (replay ranges),
 *                                             one per UTC day (days since the epoch), expiring 7 days
 *                                             after a settled record would (completedDeliveryByDayProjection)
 *   <prefix>delivery:gone:<tenantId>          hash URL → since when it answers 410
 *   <prefix>delivery:due                      sorted set: requestId by due time (ms), the schedule
 *   <prefix>delivery:~built:2                 set once a rebuild from the log completed
 *
 * Every write is the projector's optimistic loop (`project`): concurrent writers and redelivered
 * events need no locking. `claimDue` is one Lua script, so an entry goes to one claimer only.
 * Everything here is a view of the log: wrapped in `selfRebuildingDeliveries`, it rebuilds
 * itself (records and schedule) when it finds its marker gone (a FLUSHALL, a restart of a Redis
 * without persistence, an upgrade from the `deliveries:` layout, which is not read);
 * `ops webhooks rebuild` wipes and rebuilds it by hand, and frees that older layout too.
 */
export function createRedisDeliveryStore(options: RedisDeliveryStoreOptions): DeliveryStore {
  const logger = options.logger ?? silentLogger;
  const redis = connectRedis({ url: options.url, name: `pressroom-deliveries@${options.keyPrefix}`, logger });
  const store = createRedisDocumentStore({ ...options, name: 'deliveries store', connection: 'deliveries', logger, client: redis });
  const view = deliveryStoreOn(store, createRedisDeliverySchedule(redis, `${options.keyPrefix}${DELIVERY_SCHEDULE}`), {
    copies: false,
    settledTtlMs: options.settledRetentionMs ?? DEFAULT_STATUS_RETENTION_SECONDS * 1000,
  });
  return {
    ...view,
    async clear() {
      await Promise.all([view.clear(), guard(unlinkByPrefix(redis, options.keyPrefix + LEGACY_DELIVERY_DOCUMENTS))]);
    },
  };
}

/** Hands out due entries to one caller each, leasing them: KEYS[1] due; ARGV now, leaseUntil, limit. */
const CLAIM_DUE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
return ids
`;

/** The schedule as one sorted set (`key`): requestId by due time (ms). */
function createRedisDeliverySchedule(redis: Redis, key: string): DeliverySchedule {
  redis.defineCommand('pressroomClaimDue', { numberOfKeys: 1, lua: CLAIM_DUE });
  const claim = (...args: string[]) =>
    (redis as unknown as { pressroomClaimDue(key: string, ...args: string[]): Promise<string[]> }).pressroomClaimDue(key, ...args);
  return {
    async schedule(requestId, dueAtMs, opts) {
      if (opts?.ifAbsent) await guard(redis.zadd(key, 'NX', dueAtMs, requestId));
      else await guard(redis.zadd(key, dueAtMs, requestId));
    },
    async claimDue(nowMs, leaseMs, limit) {
      return guard(claim(String(nowMs), String(nowMs + leaseMs), String(limit)));
    },
    async nextDueAt() {
      const first = await guard(redis.zrange(key, '0', '0', 'WITHSCORES'));
      return first.length === 2 ? Number(first[1]) : undefined;
    },
    async unschedule(requestId) {
      await guard(redis.zrem(key, requestId));
    },
    async clear() {
      await guard(redis.unlink(key));
    },
  };
}
