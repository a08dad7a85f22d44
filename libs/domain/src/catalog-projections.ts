import type { CatalogEvent } from '@pressroom/schemas';
import { apiKeyAfter, apiKeyOf, keyIdOf, type ApiKeyRecord } from './api-keys.ts';
import {
  isNewerThan,
  s3ConnectionDeletedOf,
  s3ConnectionOf,
  tenantAfterPlanChange,
  tenantOf,
  webhookSecretsOf,
  type S3Connection,
  type Tenant,
  type WebhookSecrets,
} from './catalog.ts';
import type { Projection } from './projection.ts';

/*
 * The catalog view as projections (see projection.ts): one document per tenant, key, key id,
 * connection and webhook secret, plus the tenant's stream version. Each evolve is one of the
 * record rules of catalog.ts / api-keys.ts, so it is idempotent and forward-only by sequence.
 */

/** The catalog events of these types. */
type EventOf<T extends CatalogEvent['type']> = Extract<CatalogEvent, { type: T }>;

/** A tenant as the view keeps it: with the sequence that last wrote it (readers never see it). */
export type TenantRecord = Tenant & { sequence?: number };

/** A revocation or rotation, with the hash of the key it names (the event names the key by id: see `apiKeyIdProjection`). */
export interface ApiKeyChange {
  keyHash: string;
  event: EventOf<'ApiKeyRevoked' | 'ApiKeyRotated'>;
}

/** That a tenant's key was used at `at` (ISO time): an observation the view keeps, not a fact of the log. */
export interface ApiKeyUse {
  tenantId: string;
  keyId: string;
  at: string;
}

/** The latest use of one key (see `ApiKeyUse`). */
export interface ApiKeyUseRecord {
  keyId: string;
  at: string;
}

/** Whether `event` is a catalog event (they alone carry a sequence) of one of `types`. */
export function isCatalogEvent<T extends CatalogEvent['type']>(event: unknown, ...types: T[]): event is EventOf<T> {
  if (typeof event !== 'object' || event === null) return false;
  const e = event as { type?: unknown; tenantId?: unknown; sequence?: unknown };
  return typeof e.sequence === 'number' && typeof e.tenantId === 'string' && (types as unknown[]).includes(e.type);
}

/** A tenant: created once (a replayed creation changes nothing), its plan moved forward only. */
export const tenantProjection: Projection<EventOf<'TenantCreated' | 'TenantPlanChanged'>, TenantRecord> = {
  canHandle: (event) => isCatalogEvent(event, 'TenantCreated', 'TenantPlanChanged'),
  keyOf: (event) => event.tenantId,
  evolve(current, event) {
    if (event.type === 'TenantPlanChanged') return tenantAfterPlanChange(current, event) ?? current;
    if (!isNewerThan(current, event)) return current;
    const tenant = tenantOf(undefined, event);
    return tenant && { ...tenant, sequence: event.sequence };
  },
};

/** A key, under its hash (what authentication looks up), as issued. */
export const apiKeyIssuedProjection: Projection<EventOf<'ApiKeyIssued'>, ApiKeyRecord> = {
  canHandle: (event) => isCatalogEvent(event, 'ApiKeyIssued'),
  keyOf: (event) => event.data.keyHash,
  evolve: (current, event) => (isNewerThan(current, event) ? apiKeyOf(event) : current),
};

/** A key after its revocation or rotation (forward only). */
export const apiKeyChangeProjection: Projection<ApiKeyChange, ApiKeyRecord> = {
  canHandle: (change): change is ApiKeyChange =>
    typeof change === 'object' &&
    change !== null &&
    typeof (change as Partial<ApiKeyChange>).keyHash === 'string' &&
    isCatalogEvent((change as Partial<ApiKeyChange>).event, 'ApiKeyRevoked', 'ApiKeyRotated'),
  keyOf: (change) => change.keyHash,
  evolve: (current, change) => apiKeyAfter(current, change.event) ?? current,
};

/** A tenant's keys: key id → key hash, in the tenant's group (lists the tenant's keys; finds the key a revocation names). */
export const apiKeyIdProjection: Projection<EventOf<'ApiKeyIssued'>, string> = {
  canHandle: (event) => isCatalogEvent(event, 'ApiKeyIssued'),
  keyOf: (event) => ({ group: event.tenantId, id: keyIdOf(event) }),
  evolve: (current, event) => (current === event.data.keyHash ? current : event.data.keyHash),
};

/** The latest use of a key, in its tenant's group: only a later time replaces it. */
export const apiKeyUseProjection: Projection<ApiKeyUse, ApiKeyUseRecord> = {
  canHandle: (use): use is ApiKeyUse =>
    typeof use === 'object' &&
    use !== null &&
    ['tenantId', 'keyId', 'at'].every((k) => typeof (use as Record<string, unknown>)[k] === 'string'),
  keyOf: (use) => ({ group: use.tenantId, id: use.keyId }),
  evolve: (current, use) => (current !== undefined && current.at >= use.at ? current : { keyId: use.keyId, at: use.at }),
};

/** An S3 connection, in its tenant's group: replaced by a later registration; a deletion leaves a tombstone. */
export const s3ConnectionProjection: Projection<EventOf<'S3ConnectionRegistered' | 'S3ConnectionDeleted'>, S3Connection> = {
  canHandle: (event) => isCatalogEvent(event, 'S3ConnectionRegistered', 'S3ConnectionDeleted'),
  keyOf: (event) => ({ group: event.tenantId, id: event.data.connectionId }),
  evolve: (current, event) =>
    (event.type === 'S3ConnectionRegistered' ? s3ConnectionOf(current, event) : s3ConnectionDeletedOf(current, event)) ?? current,
};

/** A tenant's webhook signing secrets, moved forward only. */
export const webhookSecretsProjection: Projection<EventOf<'WebhookSecretCreated' | 'WebhookSecretRotated'>, WebhookSecrets> = {
  canHandle: (event) => isCatalogEvent(event, 'WebhookSecretCreated', 'WebhookSecretRotated'),
  keyOf: (event) => event.tenantId,
  evolve: (current, event) => webhookSecretsOf(current, event) ?? current,
};

/** Every catalog event type (a record, so the compiler asks for a new one). */
const CATALOG_EVENT_TYPES = Object.keys({
  TenantCreated: true,
  TenantPlanChanged: true,
  ApiKeyIssued: true,
  ApiKeyRevoked: true,
  ApiKeyRotated: true,
  S3ConnectionRegistered: true,
  S3ConnectionDeleted: true,
  WebhookSecretCreated: true,
  WebhookSecretRotated: true,
} satisfies Record<CatalogEvent['type'], true>) as CatalogEvent['type'][];

/** The highest sequence of the tenant's stream applied (what a catalog decision expects). */
export const catalogStreamVersionProjection: Projection<CatalogEvent, number> = {
  canHandle: (event) => isCatalogEvent(event, ...CATALOG_EVENT_TYPES),
  keyOf: (event) => event.tenantId,
  evolve: (current, event) => (current !== undefined && current >= event.sequence ? current : event.sequence),
};
