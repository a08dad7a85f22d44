import type { BuiltMarker } from './built-marker.ts';
import type { CatalogEvent } from '@pressroom/schemas';
import type { ApiKeyRecord, S3Connection, Tenant, WebhookSecrets } from '@pressroom/domain';
import type { DocumentCollectionSpec } from './document-store.ts';

export type { ApiKeyRecord, S3Connection, Tenant, WebhookSecrets } from '@pressroom/domain';
export type { Plan } from '@pressroom/schemas';

/**
 * The catalog view: tenants, API keys (hashes), S3 connections and webhook signing secrets,
 * derived only from catalog events (the projection rules in @pressroom/domain), so it can be
 * wiped and rebuilt from the catalog topic. (Templates are not here: see `TemplateView`.)
 *
 * Adapters guarantee:
 * - `apply` is idempotent and forward-only (a record that can be replaced is replaced only by
 *   an event with a higher sequence), safe to call concurrently from several processes;
 * - every read is scoped by tenant: an S3 connection or webhook secret of another tenant is
 *   simply absent;
 * - `isBuilt` is true only after `markBuilt` and until the view's storage loses its data
 *   (a Redis FLUSHALL or a restart without persistence): readers rebuild then.
 */
export interface Catalog extends BuiltMarker {
  apply(event: CatalogEvent): Promise<void>;
  getTenant(tenantId: string): Promise<Tenant | undefined>;
  findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined>;
  getS3Connection(tenantId: string, connectionId: string): Promise<S3Connection | undefined>;
  /**
   * The tenant's keys (revoked and expired ones included), oldest first (by createdAt, then
   * keyId), each with its `lastUsedAt` when one was recorded.
   */
  listApiKeys(tenantId: string): Promise<ApiKeyRecord[]>;
  /** The tenant's live S3 connections (deleted ones are absent), by id. */
  listS3Connections(tenantId: string): Promise<S3Connection[]>;
  /**
   * Remembers that a key was used at `at` (ISO time): not a fact of the log, an observation the
   * view keeps (lost with the view's storage). Callers throttle it (shouldRecordKeyUse); an
   * adapter keeps the latest time it was given.
   */
  recordKeyUse(tenantId: string, keyId: string, at: string): Promise<void>;
  getWebhookSecrets(tenantId: string): Promise<WebhookSecrets | undefined>;
  /** The highest sequence of the tenant's stream the view has applied (0: none). */
  streamVersion(tenantId: string): Promise<number>;
  /** Whether a full rebuild from the log completed since the storage last lost its data. */
  isBuilt(): Promise<boolean>;
  markBuilt(): Promise<void>;
  /** Removes everything (before a rebuild from the log). */
  clear(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/*
 * Where the catalog's documents live in a document store (see catalogOn). The records keep the
 * names and the layout of the catalog before it moved onto documents (tenant, api-key,
 * s3-connections, webhook-secrets, version), so a deployment's data stays readable; the key index
 * and the key uses are new names (they were raw strings), and so is the marker: an upgraded
 * deployment finds no marker and replays the catalog topic once to write them.
 */
export const CATALOG_DOCUMENTS = 'catalog:';
/** tenantId → Tenant (with the sequence that wrote it). */
export const CATALOG_TENANTS = { name: 'catalog:tenant:' } satisfies DocumentCollectionSpec;
/** keyHash → ApiKeyRecord. */
export const CATALOG_API_KEYS = { name: 'catalog:api-key:' } satisfies DocumentCollectionSpec;
/** group tenantId: keyId → keyHash. */
export const CATALOG_KEY_IDS = { name: 'catalog:key-ids:' } satisfies DocumentCollectionSpec;
/** group tenantId: keyId → latest use (an observation, not from the log). */
export const CATALOG_KEY_USES = { name: 'catalog:key-uses:' } satisfies DocumentCollectionSpec;
/** group tenantId: connectionId → S3Connection (a deleted one stays as a tombstone). */
export const CATALOG_S3_CONNECTIONS = { name: 'catalog:s3-connections:' } satisfies DocumentCollectionSpec;
/** tenantId → WebhookSecrets. */
export const CATALOG_WEBHOOK_SECRETS = { name: 'catalog:webhook-secrets:' } satisfies DocumentCollectionSpec;
/** tenantId → the highest sequence applied. */
export const CATALOG_VERSIONS = { name: 'catalog:version:' } satisfies DocumentCollectionSpec;
export const CATALOG_BUILT_MARKER = 'catalog:~built';
