import type {
  ApiKeyScope,
  CatalogEvent,
  Plan,
  S3ConnectionDeleted,
  S3ConnectionRegistered,
  TenantCreated,
  TenantPlanChanged,
  WebhookSecretCreated,
  WebhookSecretRotated,
} from '@pressroom/schemas';
import { PressroomError, notFound } from './errors.ts';
import type { Decision, EventMeta } from './decision.ts';
import { ALL_SCOPES, apiKeyAfter, apiKeyOf, apiKeyStatus, type ApiKeyRecord } from './api-keys.ts';

export type { ApiKeyRecord } from './api-keys.ts';

/** The catalog's records, as its views keep them; each is derived from catalog events only. */
export interface Tenant {
  tenantId: string;
  name: string;
  plan: Plan;
  createdAt: string;
}

/**
 * `secretAccessKey` is stored sealed (AES-256-GCM, see SecretBox); adapters never see it in clear.
 * Either static credentials (accessKeyId + sealedSecretAccessKey) or a role to assume (roleArn,
 * externalId).
 */
export interface S3Connection {
  tenantId: string;
  connectionId: string;
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  accessKeyId?: string;
  sealedSecretAccessKey?: string;
  roleArn?: string;
  externalId?: string;
  createdAt: string;
  /** Set by S3ConnectionDeleted: the view keeps the record as a tombstone (so an older registration replayed cannot revive it); readers skip it. */
  deletedAt?: string;
  /** The sequence of the event that wrote it: a later registration of the same id replaces it. */
  sequence?: number;
}

/** A tenant's webhook signing secrets (`whsec_…`), stored sealed like S3 secrets. */
export interface WebhookSecrets {
  tenantId: string;
  current: { sealedSecret: string; createdAt: string };
  /** The secret before the last rotation; it keeps signing until `expiresAt`. */
  previous?: { sealedSecret: string; expiresAt: string };
  /** The sequence of the event that wrote it: only a later one replaces it. */
  sequence?: number;
}

/** Whether `event` is newer than what wrote `record` (records written before sequences count as oldest). */
export const isNewerThan = (record: { sequence?: number } | undefined, event: CatalogEvent) =>
  !record || (record.sequence ?? 0) < event.sequence;

/*
 * Projection rules: each returns the record an event writes, given the record as it stands,
 * or undefined when the event changes nothing. Idempotent and forward-only, so applying the
 * log twice, or an event from the ingress and again from the projector, gives one result.
 */
export function tenantOf(current: Tenant | undefined, event: TenantCreated): Tenant | undefined {
  if (current) return undefined;
  return { tenantId: event.tenantId, name: event.data.name, plan: event.data.plan, createdAt: event.occurredAt };
}

/** The tenant after a plan change (forward only: the view keeps the sequence that wrote the tenant). */
export function tenantAfterPlanChange(
  current: (Tenant & { sequence?: number }) | undefined,
  event: TenantPlanChanged,
): (Tenant & { sequence: number }) | undefined {
  if (!current || (current.sequence ?? 0) >= event.sequence) return undefined;
  return { ...current, plan: event.data.plan, sequence: event.sequence };
}

export { apiKeyOf };

export function s3ConnectionOf(current: S3Connection | undefined, event: S3ConnectionRegistered): S3Connection | undefined {
  if (!isNewerThan(current, event)) return undefined;
  return { tenantId: event.tenantId, ...event.data, createdAt: event.occurredAt, sequence: event.sequence };
}

/** The tombstone a deletion leaves (see S3Connection.deletedAt). */
export function s3ConnectionDeletedOf(current: S3Connection | undefined, event: S3ConnectionDeleted): S3Connection | undefined {
  if (!current || !isNewerThan(current, event)) return undefined;
  return { ...current, deletedAt: event.occurredAt, sequence: event.sequence };
}

export function webhookSecretsOf(
  current: WebhookSecrets | undefined,
  event: WebhookSecretCreated | WebhookSecretRotated,
): WebhookSecrets | undefined {
  if (!isNewerThan(current, event)) return undefined;
  const now = { sealedSecret: event.data.sealedSecret, createdAt: event.occurredAt };
  if (event.type === 'WebhookSecretCreated') return { tenantId: event.tenantId, current: now, sequence: event.sequence };
  return {
    tenantId: event.tenantId,
    current: now,
    previous: { sealedSecret: event.data.previousSealedSecret, expiresAt: event.data.previousExpiresAt },
    sequence: event.sequence,
  };
}

/** What a catalog decision needs to know of one tenant's stream. */
export interface CatalogState {
  /** How many catalog events the tenant's stream holds. */
  streamVersion: number;
  tenant: Tenant | undefined;
  /** Hashes of the tenant's keys the caller looked at (to make re-issuing a known key a no-op). */
  apiKeyHashes: string[];
  webhookSecrets: WebhookSecrets | undefined;
  /** The tenant's keys (revocation and rotation decide on them). */
  apiKeys?: ApiKeyRecord[];
  /** Ids of the tenant's live S3 connections (a deletion decides on them). */
  connectionIds?: string[];
}

export const emptyCatalogState: CatalogState = {
  streamVersion: 0,
  tenant: undefined,
  apiKeyHashes: [],
  webhookSecrets: undefined,
  apiKeys: [],
  connectionIds: [],
};

/** Folds one tenant's catalog events, in log order, into its state. */
export function evolveCatalogState(state: CatalogState, event: CatalogEvent): CatalogState {
  const next = { ...state, streamVersion: Math.max(state.streamVersion, event.sequence) };
  switch (event.type) {
    case 'TenantCreated':
      return { ...next, tenant: tenantOf(state.tenant, event) ?? state.tenant };
    case 'TenantPlanChanged':
      return { ...next, tenant: state.tenant ? { ...state.tenant, plan: event.data.plan } : state.tenant };
    case 'ApiKeyIssued':
      return {
        ...next,
        apiKeyHashes: [...new Set([...state.apiKeyHashes, event.data.keyHash])],
        apiKeys: [...(state.apiKeys ?? []), apiKeyOf(event)],
      };
    case 'ApiKeyRevoked':
    case 'ApiKeyRotated':
      return { ...next, apiKeys: (state.apiKeys ?? []).map((k) => apiKeyAfter(k, event) ?? k) };
    case 'S3ConnectionRegistered':
      return { ...next, connectionIds: [...new Set([...(state.connectionIds ?? []), event.data.connectionId])] };
    case 'S3ConnectionDeleted':
      return { ...next, connectionIds: (state.connectionIds ?? []).filter((id) => id !== event.data.connectionId) };
    case 'WebhookSecretCreated':
    case 'WebhookSecretRotated':
      return { ...next, webhookSecrets: webhookSecretsOf(state.webhookSecrets, event) ?? state.webhookSecrets };
  }
}

/** What an operator or a tenant asks of the catalog. Secrets arrive sealed, keys hashed. */
export type CatalogCommand =
  | { type: 'CreateTenant'; tenantId: string; name: string; plan: Plan }
  | { type: 'ChangePlan'; tenantId: string; plan: Plan }
  | { type: 'IssueApiKey'; tenantId: string; keyHash: string; label: string; keyId?: string; prefix?: string; scopes?: ApiKeyScope[] }
  | { type: 'RevokeApiKey'; tenantId: string; keyId: string }
  | {
      type: 'RotateApiKey';
      tenantId: string;
      keyId: string;
      /** The key that replaces it (generated by the caller: the decider has no randomness). */
      replacement: { keyId: string; keyHash: string; prefix: string };
      /** Until when the old key keeps working. */
      expiresAt: string;
      /** The id of the second event of the decision (ApiKeyRotated); `meta.eventId` names the first. */
      rotationEventId: string;
    }
  | { type: 'RegisterS3Connection'; tenantId: string; connection: S3ConnectionRegistered['data'] }
  | { type: 'DeleteS3Connection'; tenantId: string; connectionId: string }
  | { type: 'CreateWebhookSecret'; tenantId: string; sealedSecret: string }
  | { type: 'RotateWebhookSecret'; tenantId: string; sealedSecret: string; previousExpiresAt: string };

/**
 * Decides a catalog command against the tenant's stream: the events to append with the
 * stream version they expect, or why not. Pure: ids and time come in `meta`.
 *
 * - A tenant is created once (CONFLICT after); every other command needs the tenant (NOT_FOUND).
 * - Issuing a key the tenant already has, or creating a webhook secret when one exists,
 *   decides nothing (no events): both are safe to repeat (e.g. PRESSROOM_API_KEY at each start).
 * - A rotation replaces the current secret; the one it replaces keeps signing until
 *   `previousExpiresAt`. Without a current secret there is nothing to rotate: it creates one.
 * - A key is revoked or rotated by its id, among the tenant's own keys only (another tenant's
 *   key id is NOT_FOUND, like an unknown one). Revoking a revoked key decides nothing; rotating
 *   a key that is revoked, expired or already rotated is a CONFLICT. A rotation is two events
 *   in one append: the new key (same label and scopes), then the old key's expiry.
 * - Changing to the plan the tenant has decides nothing. Deleting an unknown connection is NOT_FOUND.
 */
export function decideCatalog(command: CatalogCommand, state: CatalogState, meta: EventMeta): Decision<CatalogEvent> | PressroomError {
  const expectedVersion = state.streamVersion;
  const envelope = { ...meta, version: 1 as const, tenantId: command.tenantId, sequence: expectedVersion + 1 };
  const none: Decision<CatalogEvent> = { events: [], expectedVersion };
  if (command.type === 'CreateTenant') {
    if (state.tenant || state.streamVersion > 0) return new PressroomError('CONFLICT', `Tenant ${command.tenantId} exists already.`);
    return { expectedVersion, events: [{ ...envelope, type: 'TenantCreated', data: { name: command.name, plan: command.plan } }] };
  }
  if (!state.tenant) return notFound(`Tenant ${command.tenantId}`);
  switch (command.type) {
    case 'ChangePlan':
      if (state.tenant.plan === command.plan) return none;
      return { expectedVersion, events: [{ ...envelope, type: 'TenantPlanChanged', data: { plan: command.plan } }] };
    case 'IssueApiKey': {
      if (state.apiKeyHashes.includes(command.keyHash)) return none;
      const data = {
        keyHash: command.keyHash,
        label: command.label,
        ...(command.keyId !== undefined ? { keyId: command.keyId } : {}),
        ...(command.prefix !== undefined ? { prefix: command.prefix } : {}),
        ...(command.scopes !== undefined ? { scopes: [...new Set(command.scopes)] } : {}),
      };
      return { expectedVersion, events: [{ ...envelope, type: 'ApiKeyIssued', data }] };
    }
    case 'RevokeApiKey': {
      const key = (state.apiKeys ?? []).find((k) => k.keyId === command.keyId);
      if (!key) return notFound(`API key ${command.keyId}`);
      if (key.revokedAt !== undefined) return none;
      return { expectedVersion, events: [{ ...envelope, type: 'ApiKeyRevoked', data: { keyId: command.keyId } }] };
    }
    case 'RotateApiKey': {
      const key = (state.apiKeys ?? []).find((k) => k.keyId === command.keyId);
      if (!key) return notFound(`API key ${command.keyId}`);
      const status = apiKeyStatus(key, new Date(meta.occurredAt));
      if (status !== 'active')
        return new PressroomError('CONFLICT', `API key ${command.keyId} is ${status}: only an active key can be rotated.`);
      const r = command.replacement;
      return {
        expectedVersion,
        events: [
          {
            ...envelope,
            type: 'ApiKeyIssued',
            data: { keyHash: r.keyHash, label: key.label, keyId: r.keyId, prefix: r.prefix, scopes: [...(key.scopes ?? ALL_SCOPES)] },
          },
          {
            ...envelope,
            eventId: command.rotationEventId,
            sequence: expectedVersion + 2,
            type: 'ApiKeyRotated',
            data: { keyId: key.keyId, replacedBy: r.keyId, expiresAt: command.expiresAt },
          },
        ],
      };
    }
    case 'RegisterS3Connection':
      return { expectedVersion, events: [{ ...envelope, type: 'S3ConnectionRegistered', data: command.connection }] };
    case 'DeleteS3Connection':
      if (!(state.connectionIds ?? []).includes(command.connectionId)) return notFound(`S3 connection ${command.connectionId}`);
      return { expectedVersion, events: [{ ...envelope, type: 'S3ConnectionDeleted', data: { connectionId: command.connectionId } }] };
    case 'CreateWebhookSecret':
      if (state.webhookSecrets) return none;
      return { expectedVersion, events: [{ ...envelope, type: 'WebhookSecretCreated', data: { sealedSecret: command.sealedSecret } }] };
    case 'RotateWebhookSecret': {
      const before = state.webhookSecrets?.current.sealedSecret;
      if (!before) {
        return { expectedVersion, events: [{ ...envelope, type: 'WebhookSecretCreated', data: { sealedSecret: command.sealedSecret } }] };
      }
      return {
        expectedVersion,
        events: [
          {
            ...envelope,
            type: 'WebhookSecretRotated',
            data: { sealedSecret: command.sealedSecret, previousSealedSecret: before, previousExpiresAt: command.previousExpiresAt },
          },
        ],
      };
    }
  }
}
