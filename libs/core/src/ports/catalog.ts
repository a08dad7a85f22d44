import type { CatalogEvent } from '@pressroom/schemas';
import type { ApiKeyRecord, S3Connection, Tenant, WebhookSecrets } from '@pressroom/domain';

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
export interface Catalog {
  apply(event: CatalogEvent): Promise<void>;
  getTenant(tenantId: string): Promise<Tenant | undefined>;
  findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined>;
  getS3Connection(tenantId: string, connectionId: string): Promise<S3Connection | undefined>;
  /** The tenant's keys (revoked and expired ones included), oldest first, each with its `lastUsedAt` when one was recorded. */
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
