import {
  apiKeyAfter,
  apiKeyOf,
  s3ConnectionDeletedOf,
  s3ConnectionOf,
  tenantAfterPlanChange,
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
  const tenants = new Map<string, Tenant & { sequence?: number }>();
  const apiKeys = new Map<string, ApiKeyRecord>();
  /** tenantId → keyId → keyHash */
  const keyIndex = new Map<string, Map<string, string>>();
  const lastUsed = new Map<string, string>();
  const connections = new Map<string, S3Connection>();
  const webhookSecrets = new Map<string, WebhookSecrets>();
  const versions = new Map<string, number>();
  let built = false;
  const pair = (tenantId: string, id: string) => JSON.stringify([tenantId, id]);
  const copy = <T>(v: T): T => (v === undefined ? v : structuredClone(v));
  const withoutSequence = <T extends { sequence?: number }>(v: T | undefined): T | undefined => {
    if (!v) return v;
    const rest = structuredClone(v);
    delete rest.sequence;
    return rest;
  };
  const keysOf = (tenantId: string) => {
    let m = keyIndex.get(tenantId);
    if (!m) keyIndex.set(tenantId, (m = new Map<string, string>()));
    return m;
  };

  return {
    async apply(event) {
      versions.set(event.tenantId, Math.max(versions.get(event.tenantId) ?? 0, event.sequence));
      switch (event.type) {
        case 'TenantCreated': {
          const t = tenantOf(tenants.get(event.tenantId), event);
          if (t) tenants.set(event.tenantId, { ...t, sequence: event.sequence });
          return;
        }
        case 'TenantPlanChanged': {
          const t = tenantAfterPlanChange(tenants.get(event.tenantId), event);
          if (t) tenants.set(event.tenantId, t);
          return;
        }
        case 'ApiKeyIssued': {
          const k = apiKeyOf(event);
          if (!apiKeys.has(k.keyHash)) apiKeys.set(k.keyHash, k);
          keysOf(event.tenantId).set(k.keyId, k.keyHash);
          return;
        }
        case 'ApiKeyRevoked':
        case 'ApiKeyRotated': {
          const hash = keysOf(event.tenantId).get(event.data.keyId);
          const k = hash === undefined ? undefined : apiKeyAfter(apiKeys.get(hash), event);
          if (k) apiKeys.set(k.keyHash, k);
          return;
        }
        case 'S3ConnectionRegistered': {
          const key = pair(event.tenantId, event.data.connectionId);
          const c = s3ConnectionOf(connections.get(key), event);
          if (c) connections.set(key, c);
          return;
        }
        case 'S3ConnectionDeleted': {
          const key = pair(event.tenantId, event.data.connectionId);
          const c = s3ConnectionDeletedOf(connections.get(key), event);
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
    getTenant: async (tenantId) => withoutSequence(tenants.get(tenantId)),
    findApiKey: async (keyHash) => withoutSequence(apiKeys.get(keyHash)),
    async listApiKeys(tenantId) {
      const out: ApiKeyRecord[] = [];
      for (const [keyId, hash] of keysOf(tenantId)) {
        const k = withoutSequence(apiKeys.get(hash));
        if (!k) continue;
        const used = lastUsed.get(pair(tenantId, keyId));
        out.push(used ? { ...k, lastUsedAt: used } : k);
      }
      return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async recordKeyUse(tenantId, keyId, at) {
      const key = pair(tenantId, keyId);
      if ((lastUsed.get(key) ?? '') < at) lastUsed.set(key, at);
    },
    async getS3Connection(tenantId, connectionId) {
      const c = connections.get(pair(tenantId, connectionId));
      return c && c.deletedAt === undefined ? copy(c) : undefined;
    },
    async listS3Connections(tenantId) {
      return [...connections.values()]
        .filter((c) => c.tenantId === tenantId && c.deletedAt === undefined)
        .map(copy)
        .sort((a, b) => a.connectionId.localeCompare(b.connectionId));
    },
    getWebhookSecrets: async (tenantId) => copy(webhookSecrets.get(tenantId)),
    streamVersion: async (tenantId) => versions.get(tenantId) ?? 0,
    isBuilt: async () => built,
    async markBuilt() {
      built = true;
    },
    async clear() {
      for (const m of [tenants, apiKeys, keyIndex, lastUsed, connections, webhookSecrets, versions]) m.clear();
      built = false;
    },
    async ping() {},
    async close() {},
  };
}
