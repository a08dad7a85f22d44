import { assetEventOrder, assetRecordOf } from '@pressroom/domain';
import { silentLogger, type AssetIndex, type AssetRecord, type Logger } from '@pressroom/core';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';
import { escapeGlob, unlinkByPrefix } from './unlink-by-prefix.ts';
import { redisBuiltMarker } from './built-marker.ts';

const guard = redisGuard('asset index');

/**
 * Applies one asset event when it is newer than the last one applied to its name (see
 * `applyAssetEvent` in @pressroom/domain): KEYS records, order; ARGV name, order, record JSON
 * ('' for a deletion). Returns 1 when applied.
 */
const APPLY = `
local current = redis.call('HGET', KEYS[2], ARGV[1])
if current and current >= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return 1
`;

/**
 * The distributed profile's asset index, a view of the assets topic. Layout:
 *
 *   <prefix>asset-index:records:<tenantId>   hash: name → AssetRecord JSON (live assets)
 *   <prefix>asset-index:order:<tenantId>     hash: name → order of the last event applied (deletions too)
 *   <prefix>asset-index:built                set once a rebuild from the log completed
 *
 * Tenant scoping is structural (hashes per tenant); an apply is one Lua script, so concurrent
 * writers (the uploading ingress, the projector, a rebuild) agree whatever their order.
 * (Before assets were on the log, the index lived in `<prefix>assets:<tenantId>`: see
 * `readLegacyRedisAssetIndex` and `ops assets import`.)
 */
export function createRedisAssetIndex(options: { url: string; keyPrefix: string; logger?: Logger }): AssetIndex {
  const redis = connectRedis({ url: options.url, name: `pressroom-assets@${options.keyPrefix}`, logger: options.logger ?? silentLogger });
  redis.defineCommand('pressroomApplyAsset', { numberOfKeys: 2, lua: APPLY });
  const applyScript = (...args: string[]) =>
    (redis as unknown as { pressroomApplyAsset(...args: string[]): Promise<number> }).pressroomApplyAsset(...args);
  const p = `${options.keyPrefix}asset-index:`;
  const recordsKey = (tenantId: string) => `${p}records:${tenantId}`;
  const orderKey = (tenantId: string) => `${p}order:${tenantId}`;
  const builtKey = `${p}built`;
  return {
    async apply(event) {
      const record = event.type === 'AssetUploaded' ? JSON.stringify(assetRecordOf(event)) : '';
      await guard(applyScript(recordsKey(event.tenantId), orderKey(event.tenantId), event.data.name, assetEventOrder(event), record));
    },
    async get(tenantId, name) {
      const raw = await guard(redis.hget(recordsKey(tenantId), name));
      return raw === null ? undefined : (JSON.parse(raw) as AssetRecord);
    },
    async list(tenantId) {
      const all = (await guard(redis.hvals(recordsKey(tenantId)))).map((r) => JSON.parse(r) as AssetRecord);
      return all.sort((a, b) => a.name.localeCompare(b.name));
    },
    async clear() {
      await guard(unlinkByPrefix(redis, p));
    },
    ...redisBuiltMarker(redis, builtKey, guard),
    async close() {
      await disconnectRedis(redis);
    },
  };
}

/** The records of the index as it was before assets were on the log (`<prefix>assets:<tenantId>` hashes). */
export async function readLegacyRedisAssetIndex(options: { url: string; keyPrefix: string; logger?: Logger }): Promise<AssetRecord[]> {
  const redis = connectRedis({
    url: options.url,
    name: `pressroom-legacy-assets@${options.keyPrefix}`,
    logger: options.logger ?? silentLogger,
  });
  try {
    const records: AssetRecord[] = [];
    const stream = redis.scanStream({ match: `${escapeGlob(options.keyPrefix)}assets:*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      for (const key of keys) records.push(...(await guard(redis.hvals(key))).map((r) => JSON.parse(r) as AssetRecord));
    }
    return records;
  } finally {
    await disconnectRedis(redis);
  }
}
