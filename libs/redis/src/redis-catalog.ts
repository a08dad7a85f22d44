import {
  apiKeyAfter,
  apiKeyOf,
  s3ConnectionDeletedOf,
  s3ConnectionOf,
  tenantAfterPlanChange,
  tenantOf,
  webhookSecretsOf,
} from '@pressroom/domain';
import {
  silentLogger,
  type ApiKeyRecord,
  type Catalog,
  type Logger,
  type S3Connection,
  type Tenant,
  type WebhookSecrets,
} from '@pressroom/core';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const guard = redisGuard('catalog');

export interface RedisCatalogOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
}

/**
 * Writes a record (a string key, or a hash field when ARGV[1] is not empty) unless the stored
 * one has a sequence at or above ARGV[3], and raises the tenant's stream version to ARGV[3].
 *   KEYS[1] record key, KEYS[2] tenant version key   ARGV: field, json, sequence
 */
const SET_IF_NEWER = `
local seq = tonumber(ARGV[3])
local cur
if ARGV[1] == '' then cur = redis.call('GET', KEYS[1]) else cur = redis.call('HGET', KEYS[1], ARGV[1]) end
local written = 0
if (not cur) or (tonumber(cjson.decode(cur).sequence or 0) < seq) then
  if ARGV[1] == '' then redis.call('SET', KEYS[1], ARGV[2]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
  written = 1
end
local v = tonumber(redis.call('GET', KEYS[2]) or '0')
if v < seq then redis.call('SET', KEYS[2], tostring(seq)) end
return written
`;

/** Sets a hash field to ARGV[1] unless it holds a later ISO time already.   KEYS[1] hash   ARGV: field, time */
const SET_LATEST = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if (not cur) or cur < ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1
`;

/**
 * The distributed profile's catalog view, on one Redis connection. Layout (the records keep
 * the layout of the catalog before it was on the log, so an existing deployment's data stays
 * readable until `ops catalog import` has written it to the log):
 *
 *   <prefix>catalog:tenant:<tenantId>              string, Tenant as JSON
 *   <prefix>catalog:api-key:<keyHash>              string, ApiKeyRecord as JSON
 *   <prefix>catalog:api-keys:<tenantId>            hash, keyId → keyHash (the tenant's keys)
 *   <prefix>catalog:key-last-used:<tenantId>       hash, keyId → ISO time (an observation, not from the log)
 *   <prefix>catalog:s3-connections:<tenantId>      hash, connectionId → S3Connection as JSON (a deleted
 *                                                  one stays as a tombstone with deletedAt)
 *   <prefix>catalog:webhook-secrets:<tenantId>     string, WebhookSecrets as JSON
 *   <prefix>catalog:version:<tenantId>             the highest sequence applied for the tenant
 *   <prefix>catalog:built                          set once a rebuild from the log completed
 *
 * Tenant scoping is structural: a tenant's connections live in its own hash and its webhook
 * secrets under its own key. Every apply is one Lua script (record and version together),
 * forward-only by sequence. The marker lives and dies with the data (FLUSHALL, a restart
 * without persistence), which is how readers know to rebuild (see selfRebuildingCatalog).
 */
export function createRedisCatalog(options: RedisCatalogOptions): Catalog {
  const logger = options.logger ?? silentLogger;
  const redis = connectRedis({ url: options.url, name: `pressroom-catalog@${options.keyPrefix}`, logger });
  redis.defineCommand('pressroomSetIfNewer', { numberOfKeys: 2, lua: SET_IF_NEWER });
  redis.defineCommand('pressroomSetLatest', { numberOfKeys: 1, lua: SET_LATEST });
  const setIfNewer = (key: string, versionKey: string, field: string, json: string, sequence: number) =>
    (redis as unknown as { pressroomSetIfNewer(...args: string[]): Promise<number> }).pressroomSetIfNewer(
      key,
      versionKey,
      field,
      json,
      String(sequence),
    );
  const p = `${options.keyPrefix}catalog:`;
  const tenantKey = (tenantId: string) => `${p}tenant:${tenantId}`;
  const apiKeyKey = (keyHash: string) => `${p}api-key:${keyHash}`;
  const connectionsKey = (tenantId: string) => `${p}s3-connections:${tenantId}`;
  const keyIndexKey = (tenantId: string) => `${p}api-keys:${tenantId}`;
  const lastUsedKey = (tenantId: string) => `${p}key-last-used:${tenantId}`;
  const webhookSecretsKey = (tenantId: string) => `${p}webhook-secrets:${tenantId}`;
  const versionKey = (tenantId: string) => `${p}version:${tenantId}`;
  const builtKey = `${p}built`;

  return {
    async apply(event) {
      const v = versionKey(event.tenantId);
      switch (event.type) {
        case 'TenantCreated': {
          const t = tenantOf(undefined, event) as Tenant;
          await guard(setIfNewer(tenantKey(event.tenantId), v, '', JSON.stringify({ ...t, sequence: event.sequence }), event.sequence));
          return;
        }
        case 'TenantPlanChanged': {
          // Read, then write if newer: applies of one tenant's events come in log order (one partition).
          const t = tenantAfterPlanChange(parse<Tenant & { sequence?: number }>(await guard(redis.get(tenantKey(event.tenantId)))), event);
          if (t) await guard(setIfNewer(tenantKey(event.tenantId), v, '', JSON.stringify(t), event.sequence));
          return;
        }
        case 'ApiKeyIssued': {
          const k = apiKeyOf(event);
          await guard(setIfNewer(apiKeyKey(k.keyHash), v, '', JSON.stringify(k), event.sequence));
          await guard(redis.hset(keyIndexKey(event.tenantId), k.keyId, k.keyHash));
          return;
        }
        case 'ApiKeyRevoked':
        case 'ApiKeyRotated': {
          const hash = await guard(redis.hget(keyIndexKey(event.tenantId), event.data.keyId));
          if (hash === null) return;
          const k = apiKeyAfter(parse<ApiKeyRecord>(await guard(redis.get(apiKeyKey(hash)))), event);
          if (k) await guard(setIfNewer(apiKeyKey(hash), v, '', JSON.stringify(k), event.sequence));
          return;
        }
        case 'S3ConnectionRegistered': {
          const c = s3ConnectionOf(undefined, event) as S3Connection;
          await guard(setIfNewer(connectionsKey(event.tenantId), v, event.data.connectionId, JSON.stringify(c), event.sequence));
          return;
        }
        case 'S3ConnectionDeleted': {
          const current = parse<S3Connection>(await guard(redis.hget(connectionsKey(event.tenantId), event.data.connectionId)));
          const c = s3ConnectionDeletedOf(current, event);
          if (c) await guard(setIfNewer(connectionsKey(event.tenantId), v, event.data.connectionId, JSON.stringify(c), event.sequence));
          return;
        }
        case 'WebhookSecretCreated':
        case 'WebhookSecretRotated': {
          const w = webhookSecretsOf(undefined, event) as WebhookSecrets;
          await guard(setIfNewer(webhookSecretsKey(event.tenantId), v, '', JSON.stringify(w), event.sequence));
          return;
        }
      }
    },
    async getTenant(tenantId) {
      return withoutSequence(parse<Tenant>(await guard(redis.get(tenantKey(tenantId)))));
    },
    async findApiKey(keyHash) {
      return withoutSequence(parse<ApiKeyRecord>(await guard(redis.get(apiKeyKey(keyHash)))));
    },
    async listApiKeys(tenantId) {
      const [index, used] = await Promise.all([guard(redis.hgetall(keyIndexKey(tenantId))), guard(redis.hgetall(lastUsedKey(tenantId)))]);
      const ids = Object.keys(index);
      if (ids.length === 0) return [];
      const records = await guard(redis.mget(ids.map((id) => apiKeyKey(index[id]!))));
      return records
        .map((raw, i) => {
          const k = withoutSequence(parse<ApiKeyRecord>(raw));
          const at = used[ids[i]!];
          return k && at ? { ...k, lastUsedAt: at } : k;
        })
        .filter((k): k is ApiKeyRecord => k !== undefined)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async recordKeyUse(tenantId, keyId, at) {
      await guard(
        (redis as unknown as { pressroomSetLatest(...args: string[]): Promise<number> }).pressroomSetLatest(
          lastUsedKey(tenantId),
          keyId,
          at,
        ),
      );
    },
    async getS3Connection(tenantId, connectionId) {
      const c = parse<S3Connection>(await guard(redis.hget(connectionsKey(tenantId), connectionId)));
      return c && c.deletedAt === undefined ? c : undefined;
    },
    async listS3Connections(tenantId) {
      const all = await guard(redis.hgetall(connectionsKey(tenantId)));
      return Object.values(all)
        .map((raw) => JSON.parse(raw) as S3Connection)
        .filter((c) => c.deletedAt === undefined)
        .sort((a, b) => a.connectionId.localeCompare(b.connectionId));
    },
    async getWebhookSecrets(tenantId) {
      return parse<WebhookSecrets>(await guard(redis.get(webhookSecretsKey(tenantId))));
    },
    async streamVersion(tenantId) {
      return Number((await guard(redis.get(versionKey(tenantId)))) ?? 0);
    },
    async isBuilt() {
      return (await guard(redis.exists(builtKey))) === 1;
    },
    async markBuilt() {
      await guard(redis.set(builtKey, new Date().toISOString()));
    },
    async clear() {
      await guard(unlinkByPrefix(redis, p));
    },
    async ping() {
      await guard(redis.ping());
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}

function parse<T>(raw: string | null): T | undefined {
  return raw === null ? undefined : (JSON.parse(raw) as T);
}

/** Tenant and key records carry their event's sequence for the apply script; readers never see it. */
function withoutSequence<T extends object>(record: T | undefined): T | undefined {
  if (!record) return record;
  const rest = { ...record } as T & { sequence?: number; lastUsedAt?: string };
  delete rest.sequence;
  return rest;
}
