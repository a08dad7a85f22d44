import {
  apiKeyChangeProjection,
  apiKeyIdProjection,
  apiKeyIssuedProjection,
  apiKeyUseProjection,
  catalogStreamVersionProjection,
  s3ConnectionProjection,
  tenantProjection,
  webhookSecretsProjection,
  type ApiKeyRecord,
  type ApiKeyUseRecord,
  type S3Connection,
  type TenantRecord,
  type WebhookSecrets,
} from '@pressroom/domain';
import type { CatalogEvent } from '@pressroom/schemas';
import {
  CATALOG_API_KEYS,
  CATALOG_BUILT_MARKER,
  CATALOG_DOCUMENTS,
  CATALOG_KEY_IDS,
  CATALOG_KEY_USES,
  CATALOG_S3_CONNECTIONS,
  CATALOG_TENANTS,
  CATALOG_VERSIONS,
  CATALOG_WEBHOOK_SECRETS,
  type Catalog,
} from '../ports/catalog.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { project } from './project.ts';
import { documentBuiltMarker } from './document-markers.ts';

/**
 * The catalog view over any document store: `apply` runs the catalog projections
 * (`catalog-projections.ts` in @pressroom/domain), the reads are the view's query side. Both
 * adapters are this (memory: `createMemoryCatalog`; Redis: `createRedisCatalog`); `copies` makes
 * reads hand out copies, for a store that hands out its own documents (memory).
 *
 * An event's records are written before the tenant's stream version, so a decision never reads
 * a version ahead of the records it decides on (a crash between leaves the version behind:
 * the append then conflicts, and the projector's redelivery completes the rest, idempotently).
 */
export function catalogOn(store: DocumentStore, opts: { copies: boolean }): Catalog {
  const tenants = store.collection<TenantRecord>(CATALOG_TENANTS);
  const apiKeys = store.collection<ApiKeyRecord>(CATALOG_API_KEYS);
  const keyIds = store.collection<string>(CATALOG_KEY_IDS);
  const keyUses = store.collection<ApiKeyUseRecord>(CATALOG_KEY_USES);
  const connections = store.collection<S3Connection>(CATALOG_S3_CONNECTIONS);
  const webhookSecrets = store.collection<WebhookSecrets>(CATALOG_WEBHOOK_SECRETS);
  const versions = store.collection<number>(CATALOG_VERSIONS);
  const out = <T>(value: T): T => (opts.copies && value !== undefined ? structuredClone(value) : value);
  /** Tenant and key records keep their event's sequence (to apply forward only); readers never see it. */
  const withoutSequence = <T extends { sequence?: number }>(record: T | undefined): T | undefined => {
    if (!record) return record;
    const rest = { ...record };
    delete rest.sequence;
    return out(rest);
  };

  async function applyRecord(event: CatalogEvent): Promise<void> {
    switch (event.type) {
      case 'TenantCreated':
      case 'TenantPlanChanged':
        await project(tenants, tenantProjection, event);
        return;
      case 'ApiKeyIssued':
        await project(apiKeys, apiKeyIssuedProjection, event);
        await project(keyIds, apiKeyIdProjection, event);
        return;
      case 'ApiKeyRevoked':
      case 'ApiKeyRotated': {
        const keyHash = (await keyIds.get({ group: event.tenantId, id: event.data.keyId }))?.doc;
        if (keyHash !== undefined) await project(apiKeys, apiKeyChangeProjection, { keyHash, event });
        return;
      }
      case 'S3ConnectionRegistered':
      case 'S3ConnectionDeleted':
        await project(connections, s3ConnectionProjection, event);
        return;
      case 'WebhookSecretCreated':
      case 'WebhookSecretRotated':
        await project(webhookSecrets, webhookSecretsProjection, event);
        return;
    }
  }

  return {
    async apply(event) {
      await applyRecord(event);
      await project(versions, catalogStreamVersionProjection, event);
    },
    getTenant: async (tenantId) => withoutSequence((await tenants.get(tenantId))?.doc),
    findApiKey: async (keyHash) => withoutSequence((await apiKeys.get(keyHash))?.doc),
    async listApiKeys(tenantId) {
      const [hashes, uses] = await Promise.all([keyIds.list(tenantId), keyUses.list(tenantId)]);
      const lastUsed = new Map(uses.map((u) => [u.keyId, u.at]));
      const records = await apiKeys.getMany(hashes);
      return records
        .map((read) => {
          const k = withoutSequence(read?.doc);
          const at = k && lastUsed.get(k.keyId);
          return k && at ? { ...k, lastUsedAt: at } : k;
        })
        .filter((k): k is ApiKeyRecord => k !== undefined)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
    },
    async recordKeyUse(tenantId, keyId, at) {
      await project(keyUses, apiKeyUseProjection, { tenantId, keyId, at });
    },
    async getS3Connection(tenantId, connectionId) {
      const c = (await connections.get({ group: tenantId, id: connectionId }))?.doc;
      return c && c.deletedAt === undefined ? out(c) : undefined;
    },
    async listS3Connections(tenantId) {
      return (await connections.list(tenantId))
        .filter((c) => c.deletedAt === undefined)
        .map(out)
        .sort((a, b) => a.connectionId.localeCompare(b.connectionId));
    },
    getWebhookSecrets: async (tenantId) => out((await webhookSecrets.get(tenantId))?.doc),
    streamVersion: async (tenantId) => (await versions.get(tenantId))?.doc ?? 0,
    ...documentBuiltMarker(store, CATALOG_BUILT_MARKER),
    clear: () => store.clear(CATALOG_DOCUMENTS),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
