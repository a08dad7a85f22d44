import { silentLogger, type Logger, type RenderCacheEntry, type RenderCacheIndex } from '@pressroom/core';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';

const guard = redisGuard('render cache');

/** How long an entry is kept after its last write: a key not rendered for that long is rendered again. */
export const REDIS_RENDER_CACHE_TTL_SECONDS = 30 * 24 * 3600;

export interface RedisRenderCacheOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
  ttlSeconds?: number;
}

/**
 * The distributed profile's render cache index, shared by every render worker:
 *
 *   <prefix>render-cache:<tenantId>:<content key>   JSON RenderCacheEntry, with a TTL
 *
 * Written by the render cache projector (one consumer group over the completed topic), read by
 * every worker. Lost or expired entries only cost renders (see RenderCacheIndex).
 */
export function createRedisRenderCache(options: RedisRenderCacheOptions): RenderCacheIndex & { ping(): Promise<void> } {
  const logger = options.logger ?? silentLogger;
  const redis = connectRedis({ url: options.url, name: `pressroom-render-cache@${options.keyPrefix}`, logger });
  const ttl = options.ttlSeconds ?? REDIS_RENDER_CACHE_TTL_SECONDS;
  const keyOf = (tenantId: string, cacheKey: string) => `${options.keyPrefix}render-cache:${tenantId}:${cacheKey}`;
  return {
    async get(tenantId, cacheKey) {
      const v = await guard(redis.get(keyOf(tenantId, cacheKey)));
      return v ? (JSON.parse(v) as RenderCacheEntry) : undefined;
    },
    async put(tenantId, cacheKey, entry) {
      await guard(redis.set(keyOf(tenantId, cacheKey), JSON.stringify(entry), 'EX', ttl));
    },
    async ping() {
      await guard(redis.ping());
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}
