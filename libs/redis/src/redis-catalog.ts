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

const guard = redisGuard('catalog');

export interface RedisCatalogOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
}

/**
 * The distributed profile's catalog, on one Redis connection. Layout:
 *
 *   <prefix>catalog:tenant:<tenantId>              string, Tenant as JSON
 *   <prefix>catalog:api-key:<keyHash>              string, ApiKeyRecord as JSON
 *   <prefix>catalog:s3-connections:<tenantId>      hash, connectionId → S3Connection as JSON
 *   <prefix>catalog:webhook-secrets:<tenantId>     string, WebhookSecrets as JSON (first one by SET NX)
 *
 * Tenant scoping is structural: a tenant's connections live in that tenant's own hash and
 * its webhook secrets under its own key, so a read for another tenant looks in a different
 * key and finds nothing. Each write is a single command, so it is atomic and last writer
 * wins (the first webhook secret excepted, which is SET NX). Nothing expires: this is the record of configuration, not a cache.
 */
export function createRedisCatalog(options: RedisCatalogOptions): Catalog {
  const logger = options.logger ?? silentLogger;
  const redis = connectRedis({ url: options.url, name: `pressroom-catalog@${options.keyPrefix}`, logger });
  const p = `${options.keyPrefix}catalog:`;
  const tenantKey = (tenantId: string) => `${p}tenant:${tenantId}`;
  const apiKeyKey = (keyHash: string) => `${p}api-key:${keyHash}`;
  const connectionsKey = (tenantId: string) => `${p}s3-connections:${tenantId}`;
  const webhookSecretsKey = (tenantId: string) => `${p}webhook-secrets:${tenantId}`;

  return {
    async putTenant(tenant: Tenant) {
      await guard(redis.set(tenantKey(tenant.tenantId), JSON.stringify(tenant)));
    },
    async getTenant(tenantId) {
      return parse<Tenant>(await guard(redis.get(tenantKey(tenantId))));
    },
    async putApiKey(record: ApiKeyRecord) {
      await guard(redis.set(apiKeyKey(record.keyHash), JSON.stringify(record)));
    },
    async findApiKey(keyHash) {
      return parse<ApiKeyRecord>(await guard(redis.get(apiKeyKey(keyHash))));
    },
    async putS3Connection(connection: S3Connection) {
      await guard(redis.hset(connectionsKey(connection.tenantId), connection.connectionId, JSON.stringify(connection)));
    },
    async getS3Connection(tenantId, connectionId) {
      return parse<S3Connection>(await guard(redis.hget(connectionsKey(tenantId), connectionId)));
    },
    async getWebhookSecrets(tenantId) {
      return parse<WebhookSecrets>(await guard(redis.get(webhookSecretsKey(tenantId))));
    },
    async addWebhookSecrets(secrets: WebhookSecrets) {
      const key = webhookSecretsKey(secrets.tenantId);
      const created = await guard(redis.set(key, JSON.stringify(secrets), 'NX'));
      if (created === 'OK') return secrets;
      return parse<WebhookSecrets>(await guard(redis.get(key))) ?? secrets;
    },
    async putWebhookSecrets(secrets: WebhookSecrets) {
      await guard(redis.set(webhookSecretsKey(secrets.tenantId), JSON.stringify(secrets)));
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
