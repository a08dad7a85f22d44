import { silentLogger, type InFlightRenders, type Logger, type RateLimiter } from '@pressroom/core';
import { takeToken } from '@pressroom/domain';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';

const guard = redisGuard('quota store');

/**
 * KEYS[1] bucket; ARGV rps, burst. The refill and take of `takeToken` (@pressroom/domain), on
 * Redis's clock (one clock for every ingress), atomically. Answers the state BEFORE this take and
 * the time, so the caller makes the full decision (remaining, reset, Retry-After) with the same
 * pure function; the int test checks both agree.
 */
const TAKE = `
local rate = tonumber(ARGV[1]) / 1000
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = burst
local at = now
local prevTokens = ''
local prevAt = ''
if s[1] then
  prevTokens = s[1]
  prevAt = s[2]
  at = tonumber(s[2])
  tokens = math.min(burst, tonumber(s[1]) + math.max(0, now - at) * rate)
end
if tokens >= 1 then tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(math.max(now, at)))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return { prevTokens, prevAt, tostring(now) }
`;

/** KEYS[1] the tenant's leases (score: expiry); ARGV cap, leaseMs, requestIds... Mirrors `admitsConcurrent`. */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
local cap = tonumber(ARGV[1])
local count = #ARGV - 2
if n + count <= cap or (n == 0 and count > cap) then
  for i = 3, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i]) end
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return { 1, n + count }
end
return { 0, n }
`;

export interface RedisQuotasOptions {
  url: string;
  keyPrefix: string;
  logger?: Logger;
}

/**
 * Rate buckets and in-flight leases shared by every ingress process:
 *
 *   <prefix>rate:<bucket>            hash {tokens, at}: a key's token bucket (expires once full again)
 *   <prefix>inflight:<tenantId>      sorted set requestId → lease expiry (ms, Redis clock)
 *
 * Each decision is one Lua script: one round trip, atomic across processes.
 */
export function createRedisQuotas(options: RedisQuotasOptions): {
  rateLimiter: RateLimiter;
  inFlight: InFlightRenders;
  close(): Promise<void>;
} {
  const logger = options.logger ?? silentLogger;
  const redis = connectRedis({ url: options.url, name: `pressroom-quotas@${options.keyPrefix}`, logger });
  redis.defineCommand('pressroomTake', { numberOfKeys: 1, lua: TAKE });
  redis.defineCommand('pressroomReserve', { numberOfKeys: 1, lua: RESERVE });
  const scripts = redis as unknown as {
    pressroomTake(key: string, ...args: string[]): Promise<[string, string, string]>;
    pressroomReserve(key: string, ...args: string[]): Promise<[number, number]>;
  };
  const close = () => disconnectRedis(redis);
  const rateLimiter: RateLimiter = {
    async take(bucket, policy) {
      const [tokens, at, now] = await guard(
        scripts.pressroomTake(`${options.keyPrefix}rate:${bucket}`, String(policy.requestsPerSecond), String(policy.burst)),
      );
      const prev = tokens === '' ? undefined : { tokens: Number(tokens), atMs: Number(at) };
      return takeToken(prev, policy, Number(now));
    },
    close,
  };
  const inFlight: InFlightRenders = {
    async reserve(tenantId, requestIds, cap, leaseMs) {
      const [admitted, n] = await guard(
        scripts.pressroomReserve(`${options.keyPrefix}inflight:${tenantId}`, String(cap), String(leaseMs), ...requestIds),
      );
      return { admitted: admitted === 1, inFlight: n };
    },
    async release(tenantId, requestIds) {
      if (requestIds.length) await guard(redis.zrem(`${options.keyPrefix}inflight:${tenantId}`, ...requestIds));
    },
    close,
  };
  return { rateLimiter, inFlight, close };
}
