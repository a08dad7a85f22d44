import { goneUrlOf, isWebhookEvent, withdrawsWebhook, type DeliveryRecord } from '@pressroom/domain';
import { silentLogger, type DeliveryStore, type Logger } from '@pressroom/core';
import type { RenderCompleted, RenderWithdrawn, WebhookEvent } from '@pressroom/schemas';
import { connectRedis, disconnectRedis } from './connect.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';
import { redisGuard } from './guard.ts';

const guard = redisGuard('deliveries store');

export interface RedisDeliveryStoreOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
}

/** Hands out due entries to one caller each, leasing them: KEYS[1] due; ARGV now, leaseUntil, limit. */
const CLAIM_DUE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
return ids
`;

/**
 * The distributed profile's deliveries, shared by every dispatcher and ingress. Layout:
 *
 *   <prefix>deliveries:record:<requestId>       hash: tenant, completion (first wins, HSETNX),
 *                                               e:<eventId> → webhook event (idempotent per id)
 *   <prefix>deliveries:completed:<tenantId>     sorted set: requestId by completion time (replay ranges)
 *   <prefix>deliveries:gone:<tenantId>          set: URLs that answered 410
 *   <prefix>deliveries:due                      sorted set: requestId by due time (ms), the schedule
 *   <prefix>deliveries:built                    set once a rebuild from the log completed
 *
 * Every write is a single idempotent command (HSETNX, HSET of an event under its own id,
 * ZADD NX, SADD), so concurrent writers and redelivered events need no locking; the view is
 * computed when read (`foldDelivery`). `claimDue` is one Lua script, so an entry goes to one
 * claimer only. Everything here is a view of the log: wrapped in `selfRebuildingDeliveries`, it
 * rebuilds itself (records and schedule) when it finds its marker gone (a FLUSHALL, a restart
 * of a Redis without persistence); `ops webhooks rebuild` wipes and rebuilds it by hand.
 */
export function createRedisDeliveryStore(options: RedisDeliveryStoreOptions): DeliveryStore {
  const logger = options.logger ?? silentLogger;
  const redis = connectRedis({ url: options.url, name: `pressroom-deliveries@${options.keyPrefix}`, logger });
  redis.defineCommand('pressroomClaimDue', { numberOfKeys: 1, lua: CLAIM_DUE });
  const claim = (key: string, ...args: string[]) =>
    (redis as unknown as { pressroomClaimDue(key: string, ...args: string[]): Promise<string[]> }).pressroomClaimDue(key, ...args);
  const p = `${options.keyPrefix}deliveries:`;
  const recordKey = (requestId: string) => `${p}record:${requestId}`;
  const completedKey = (tenantId: string) => `${p}completed:${tenantId}`;
  const goneKey = (tenantId: string) => `${p}gone:${tenantId}`;
  const dueKey = `${p}due`;
  const builtKey = `${p}built`;

  return {
    async apply(e) {
      if (e.type === 'RenderSucceeded' || e.type === 'RenderFailed' || e.type === 'BatchCompleted') {
        await guard(
          redis
            .multi()
            .hsetnx(recordKey(e.requestId), 'tenant', e.tenantId)
            .hsetnx(recordKey(e.requestId), 'completion', JSON.stringify(e))
            .exec(),
        );
        // Listed for replay only when this outcome holds the slot (not behind a withdrawal); checked
        // by eventId, so a redelivery after a crash between the two steps still lists it.
        const held = await guard(redis.hget(recordKey(e.requestId), 'completion'));
        if (held && (JSON.parse(held) as { eventId: string }).eventId === e.eventId) {
          await guard(redis.zadd(completedKey(e.tenantId), 'NX', Date.parse(e.occurredAt), e.requestId));
        }
      } else if (withdrawsWebhook(e)) {
        // Takes the terminal slot if no outcome is there yet: a later outcome is then never delivered.
        await guard(
          redis
            .multi()
            .hsetnx(recordKey(e.requestId), 'tenant', e.tenantId)
            .hsetnx(recordKey(e.requestId), 'completion', JSON.stringify(e))
            .exec(),
        );
      } else if (isWebhookEvent(e)) {
        const tx = redis
          .multi()
          .hsetnx(recordKey(e.requestId), 'tenant', e.tenantId)
          .hset(recordKey(e.requestId), `e:${e.eventId}`, JSON.stringify(e));
        const gone = goneUrlOf(e);
        if (gone) tx.sadd(goneKey(e.tenantId), gone);
        await guard(tx.exec());
      }
    },
    async get(requestId) {
      const fields = await guard(redis.hgetall(recordKey(requestId)));
      if (!fields.tenant) return undefined;
      const record: DeliveryRecord = { requestId, tenantId: fields.tenant, events: [] };
      for (const [name, value] of Object.entries(fields)) {
        if (name === 'completion') record.completion = JSON.parse(value) as RenderCompleted | RenderWithdrawn;
        else if (name.startsWith('e:')) record.events.push(JSON.parse(value) as WebhookEvent);
      }
      return record;
    },
    async listCompleted(tenantId, fromMs, toMs) {
      return guard(redis.zrangebyscore(completedKey(tenantId), fromMs, `(${toMs}`));
    },
    async isGone(tenantId, url) {
      return (await guard(redis.sismember(goneKey(tenantId), url))) === 1;
    },
    async schedule(requestId, dueAtMs, opts) {
      if (opts?.ifAbsent) await guard(redis.zadd(dueKey, 'NX', dueAtMs, requestId));
      else await guard(redis.zadd(dueKey, dueAtMs, requestId));
    },
    async claimDue(nowMs, leaseMs, limit) {
      return guard(claim(dueKey, String(nowMs), String(nowMs + leaseMs), String(limit)));
    },
    async nextDueAt() {
      const first = await guard(redis.zrange(dueKey, '0', '0', 'WITHSCORES'));
      return first.length === 2 ? Number(first[1]) : undefined;
    },
    async unschedule(requestId) {
      await guard(redis.zrem(dueKey, requestId));
    },
    async clear() {
      await guard(unlinkByPrefix(redis, p));
    },
    async isBuilt() {
      return (await guard(redis.exists(builtKey))) === 1;
    },
    async markBuilt() {
      await guard(redis.set(builtKey, new Date().toISOString()));
    },
    async ping() {
      await guard(redis.ping());
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}
