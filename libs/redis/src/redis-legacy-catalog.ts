import type { ApiKeyRecord, LegacyCatalogRecords, S3Connection, Tenant, WebhookSecrets } from '@pressroom/core';
import { connectRedis, disconnectRedis } from './connect.ts';
import { escapeGlob } from './unlink-by-prefix.ts';
import { silentLogger } from '@pressroom/core';

/**
 * Reads every catalog record a deployment kept in Redis before the catalog moved to the log
 * (the same keys the catalog view uses: `<prefix>catalog:tenant:*`, `api-key:*`,
 * `s3-connections:*`, `webhook-secrets:*`), for the one-time `ops catalog import`.
 * SCAN, never KEYS.
 */
export async function readRedisCatalogRecords(options: { url: string; keyPrefix: string }): Promise<LegacyCatalogRecords> {
  const redis = connectRedis({ url: options.url, name: `pressroom-catalog-import@${options.keyPrefix}`, logger: silentLogger });
  const p = `${options.keyPrefix}catalog:`;
  const scan = async (kind: string): Promise<string[]> => {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(`${p}${kind}:`)}*`, 'COUNT', 1000);
      cursor = next;
      out.push(...keys);
    } while (cursor !== '0');
    return out.sort();
  };
  const values = async <T>(keys: string[]): Promise<T[]> =>
    keys.length ? (await redis.mget(keys)).flatMap((v) => (v === null ? [] : [JSON.parse(v) as T])) : [];
  try {
    const connections: S3Connection[] = [];
    for (const key of await scan('s3-connections')) {
      for (const v of await redis.hvals(key)) connections.push(JSON.parse(v) as S3Connection);
    }
    return {
      tenants: await values<Tenant>(await scan('tenant')),
      apiKeys: await values<ApiKeyRecord>(await scan('api-key')),
      connections,
      webhookSecrets: await values<WebhookSecrets>(await scan('webhook-secrets')),
    };
  } finally {
    await disconnectRedis(redis);
  }
}
