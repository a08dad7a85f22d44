import { silentLogger, type AssetIndex, type AssetRecord, type Logger } from '@pressroom/core';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';

const guard = redisGuard('asset index');

/**
 * The distributed profile's asset index: `<prefix>assets:<tenantId>`, a hash name → AssetRecord
 * JSON. Tenant scoping is structural (one hash per tenant); each write is one command.
 */
export function createRedisAssetIndex(options: { url: string; keyPrefix: string; logger?: Logger }): AssetIndex {
  const redis = connectRedis({ url: options.url, name: `pressroom-assets@${options.keyPrefix}`, logger: options.logger ?? silentLogger });
  const keyOf = (tenantId: string) => `${options.keyPrefix}assets:${tenantId}`;
  return {
    async put(record) {
      await guard(redis.hset(keyOf(record.tenantId), record.name, JSON.stringify(record)));
    },
    async get(tenantId, name) {
      const raw = await guard(redis.hget(keyOf(tenantId), name));
      return raw === null ? undefined : (JSON.parse(raw) as AssetRecord);
    },
    async list(tenantId) {
      const all = (await guard(redis.hvals(keyOf(tenantId)))).map((r) => JSON.parse(r) as AssetRecord);
      return all.sort((a, b) => a.name.localeCompare(b.name));
    },
    async delete(tenantId, name) {
      return (await guard(redis.hdel(keyOf(tenantId), name))) > 0;
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}
