import { createHash } from 'node:crypto';
import { silentLogger, type ClaimResult, type IdempotencyClaim, type IdempotencyKeys, type Logger } from '@pressroom/core';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';
import { redisBuiltMarker } from './built-marker.ts';

const guard = redisGuard('idempotency keys');

export interface RedisIdempotencyKeysOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
}

/** KEYS[1] claim; ARGV requestId, ttlMs, fingerprint-if-absent, state. Accepts the holder's claim (or an expired one's place). */
const ACCEPT = `
local v = redis.call('GET', KEYS[1])
local c
if v then
  c = cjson.decode(v)
  if c.requestId ~= ARGV[1] then return 0 end
else
  c = { requestId = ARGV[1], fingerprint = ARGV[3] }
end
c.state = ARGV[4]
redis.call('SET', KEYS[1], cjson.encode(c), 'PX', tonumber(ARGV[2]))
return 1
`;

/** KEYS[1] claim; ARGV requestId. Deletes the claim only if that attempt still holds it. */
const RELEASE = `
local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).requestId == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * The distributed profile's Idempotency-Keys, shared by every ingress process:
 *
 *   <prefix>idempotency:<tenantId>:<sha256(key)>   JSON IdempotencyClaim, with its TTL
 *   <prefix>idempotency:~built                     set once the keys were rebuilt from the log
 *
 * `claim` is SET NX PX (one winner among any number of processes); `accept` and `release` are
 * Lua scripts that act only for the attempt holding the key. The caller's key is hashed: any
 * length or character set makes one bounded Redis key.
 */
export function createRedisIdempotencyKeys(options: RedisIdempotencyKeysOptions): IdempotencyKeys {
  const logger = options.logger ?? silentLogger;
  const redis = connectRedis({ url: options.url, name: `pressroom-idempotency@${options.keyPrefix}`, logger });
  redis.defineCommand('pressroomIdemAccept', { numberOfKeys: 1, lua: ACCEPT });
  redis.defineCommand('pressroomIdemRelease', { numberOfKeys: 1, lua: RELEASE });
  const scripts = redis as unknown as {
    pressroomIdemAccept(key: string, ...args: string[]): Promise<number>;
    pressroomIdemRelease(key: string, ...args: string[]): Promise<number>;
  };
  const keyOf = (tenantId: string, key: string) =>
    `${options.keyPrefix}idempotency:${tenantId}:${createHash('sha256').update(key).digest('hex')}`;
  const builtKey = `${options.keyPrefix}idempotency:~built`;
  const read = async (k: string): Promise<IdempotencyClaim | undefined> => {
    const v = await guard(redis.get(k));
    return v ? (JSON.parse(v) as IdempotencyClaim) : undefined;
  };

  return {
    async claim(tenantId, key, attempt, pendingTtlMs): Promise<ClaimResult> {
      const k = keyOf(tenantId, key);
      const claim: IdempotencyClaim = { ...attempt, state: 'pending' };
      // A claim that expires between the failed SET and the GET: try again (bounded; it cannot flap forever).
      for (let i = 0; i < 5; i++) {
        const set = await guard(redis.set(k, JSON.stringify(claim), 'PX', pendingTtlMs, 'NX'));
        if (set === 'OK') return { won: true };
        const existing = await read(k);
        if (existing) return { won: false, existing };
      }
      throw new Error(`idempotency key of ${tenantId} kept changing`);
    },
    async accept(tenantId, key, requestId, ttlMs, fingerprint = '', state = 'accepted') {
      return (await guard(scripts.pressroomIdemAccept(keyOf(tenantId, key), requestId, String(ttlMs), fingerprint, state))) === 1;
    },
    async release(tenantId, key, requestId) {
      await guard(scripts.pressroomIdemRelease(keyOf(tenantId, key), requestId));
    },
    async remember(tenantId, key, claim, ttlMs) {
      if (ttlMs <= 0) return;
      const accepted: IdempotencyClaim = { ...claim, state: 'accepted' };
      await guard(redis.set(keyOf(tenantId, key), JSON.stringify(accepted), 'PX', Math.ceil(ttlMs), 'NX'));
    },
    ...redisBuiltMarker(redis, builtKey, guard),
    get(tenantId, key) {
      return read(keyOf(tenantId, key));
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}
