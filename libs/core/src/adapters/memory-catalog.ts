import {
  apiKeyOf,
  s3ConnectionOf,
  tenantOf,
  webhookSecretsOf,
  type ApiKeyRecord,
  type S3Connection,
  type Tenant,
  type WebhookSecrets,
} from '@pressroom/domain';
import type { Catalog } from '../ports/catalog.ts';

/** The embedded profile's catalog view: in memory, rebuilt from the catalog topic at start. */
export function createMemoryCatalog(): Catalog {
  const tenants = new Map<string, Tenant>();
  const apiKeys = new Map<string, ApiKeyRecord>();
  const connections = new Map<string, S3Connection>();
  const webhookSecrets = new Map<string, WebhookSecrets>();
  const versions = new Map<string, number>();
  let built = false;
  const connectionKey = (tenantId: string, connectionId: string) => JSON.stringify([tenantId, connectionId]);
  const copy = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

  return {
    async apply(event) {
      versions.set(event.tenantId, Math.max(versions.get(event.tenantId) ?? 0, event.sequence));
      switch (event.type) {
        case 'TenantCreated': {
          const t = tenantOf(tenants.get(event.tenantId), event);
          if (t) tenants.set(event.tenantId, t);
          return;
        }
        case 'ApiKeyIssued':
          if (!apiKeys.has(event.data.keyHash)) apiKeys.set(event.data.keyHash, apiKeyOf(event));
          return;
        case 'S3ConnectionRegistered': {
          const key = connectionKey(event.tenantId, event.data.connectionId);
          const c = s3ConnectionOf(connections.get(key), event);
          if (c) connections.set(key, c);
          return;
        }
        case 'WebhookSecretCreated':
        case 'WebhookSecretRotated': {
          const w = webhookSecretsOf(webhookSecrets.get(event.tenantId), event);
          if (w) webhookSecrets.set(event.tenantId, w);
          return;
        }
      }
    },
    getTenant: async (tenantId) => copy(tenants.get(tenantId)),
    findApiKey: async (keyHash) => copy(apiKeys.get(keyHash)),
    getS3Connection: async (tenantId, connectionId) => copy(connections.get(connectionKey(tenantId, connectionId))),
    getWebhookSecrets: async (tenantId) => copy(webhookSecrets.get(tenantId)),
    streamVersion: async (tenantId) => versions.get(tenantId) ?? 0,
    isBuilt: async () => built,
    async markBuilt() {
      built = true;
    },
    async clear() {
      for (const m of [tenants, apiKeys, connections, webhookSecrets, versions]) m.clear();
      built = false;
    },
    async ping() {},
    async close() {},
  };
}
