import { catalogOn, type Catalog, type Logger } from '@pressroom/core';
import { createRedisDocumentStore } from './redis-document-store.ts';

export interface RedisCatalogOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
}

/**
 * The distributed profile's catalog view: the catalog projections' documents in a Redis document
 * store (see redis-document-store.ts), on one connection. Layout (the records keep the layout of
 * the catalog before it was on the log, so an existing deployment's data stays readable until
 * `ops catalog import` has written it to the log):
 *
 *   <prefix>catalog:tenant:<tenantId>              string, Tenant as JSON
 *   <prefix>catalog:api-key:<keyHash>              string, ApiKeyRecord as JSON
 *   <prefix>catalog:key-ids:<tenantId>             hash, keyId → keyHash as JSON (the tenant's keys)
 *   <prefix>catalog:key-uses:<tenantId>            hash, keyId → { keyId, at } (an observation, not from the log)
 *   <prefix>catalog:s3-connections:<tenantId>      hash, connectionId → S3Connection as JSON (a deleted
 *                                                  one stays as a tombstone with deletedAt)
 *   <prefix>catalog:webhook-secrets:<tenantId>     string, WebhookSecrets as JSON
 *   <prefix>catalog:version:<tenantId>             the highest sequence applied for the tenant
 *   <prefix>catalog:~built                         set once a rebuild from the log completed
 *
 * Tenant scoping is structural: a tenant's connections live in its own hash and its webhook
 * secrets under its own key. Every write is the store's compare-and-set, forward-only by
 * sequence (the projections' evolve). The marker lives and dies with the data (FLUSHALL, a
 * restart without persistence), which is how readers know to rebuild (see selfRebuildingCatalog).
 * (Before the catalog was on documents, the key index and uses were `api-keys:` and
 * `key-last-used:` hashes of raw strings and the marker `built`: an upgraded deployment finds no
 * marker and replays the catalog topic once; `clear` removes the old names with the rest.)
 */
export function createRedisCatalog(options: RedisCatalogOptions): Catalog {
  const store = createRedisDocumentStore({ ...options, name: 'catalog', connection: 'catalog' });
  return catalogOn(store, { copies: false });
}
