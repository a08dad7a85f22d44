import type {
  ApiKeyIssued,
  CatalogEvent,
  Plan,
  S3ConnectionRegistered,
  TenantCreated,
  WebhookSecretCreated,
  WebhookSecretRotated,
} from '@pressroom/schemas';
import { PressroomError, notFound } from './errors.ts';
import type { Decision, EventMeta } from './decision.ts';

/** The catalog's records, as its views keep them; each is derived from catalog events only. */
export interface Tenant {
  tenantId: string;
  name: string;
  plan: Plan;
  createdAt: string;
}

/** Only the SHA-256 of a key is ever stored; keys are 256-bit random, so a fast hash is enough. */
export interface ApiKeyRecord {
  keyHash: string;
  tenantId: string;
  label: string;
  createdAt: string;
}

/** `secretAccessKey` is stored sealed (AES-256-GCM, see SecretBox); adapters never see it in clear. */
export interface S3Connection {
  tenantId: string;
  connectionId: string;
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  accessKeyId: string;
  sealedSecretAccessKey: string;
  createdAt: string;
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
const newer = (record: { sequence?: number } | undefined, event: CatalogEvent) => !record || (record.sequence ?? 0) < event.sequence;

/*
 * Projection rules: each returns the record an event writes, given the record as it stands,
 * or undefined when the event changes nothing. Idempotent and forward-only, so applying the
 * log twice, or an event from the ingress and again from the projector, gives one result.
 */
export function tenantOf(current: Tenant | undefined, event: TenantCreated): Tenant | undefined {
  if (current) return undefined;
  return { tenantId: event.tenantId, name: event.data.name, plan: event.data.plan, createdAt: event.occurredAt };
}

export function apiKeyOf(event: ApiKeyIssued): ApiKeyRecord {
  return { keyHash: event.data.keyHash, tenantId: event.tenantId, label: event.data.label, createdAt: event.occurredAt };
}

export function s3ConnectionOf(current: S3Connection | undefined, event: S3ConnectionRegistered): S3Connection | undefined {
  if (!newer(current, event)) return undefined;
  return { tenantId: event.tenantId, ...event.data, createdAt: event.occurredAt, sequence: event.sequence };
}

export function webhookSecretsOf(
  current: WebhookSecrets | undefined,
  event: WebhookSecretCreated | WebhookSecretRotated,
): WebhookSecrets | undefined {
  if (!newer(current, event)) return undefined;
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
}

export const emptyCatalogState: CatalogState = { streamVersion: 0, tenant: undefined, apiKeyHashes: [], webhookSecrets: undefined };

/** Folds one tenant's catalog events, in log order, into its state. */
export function evolveCatalogState(state: CatalogState, event: CatalogEvent): CatalogState {
  const next = { ...state, streamVersion: Math.max(state.streamVersion, event.sequence) };
  switch (event.type) {
    case 'TenantCreated':
      return { ...next, tenant: tenantOf(state.tenant, event) ?? state.tenant };
    case 'ApiKeyIssued':
      return { ...next, apiKeyHashes: [...new Set([...state.apiKeyHashes, event.data.keyHash])] };
    case 'S3ConnectionRegistered':
      return next;
    case 'WebhookSecretCreated':
    case 'WebhookSecretRotated':
      return { ...next, webhookSecrets: webhookSecretsOf(state.webhookSecrets, event) ?? state.webhookSecrets };
  }
}

/** What an operator or a tenant asks of the catalog. Secrets arrive sealed, keys hashed. */
export type CatalogCommand =
  | { type: 'CreateTenant'; tenantId: string; name: string; plan: Plan }
  | { type: 'IssueApiKey'; tenantId: string; keyHash: string; label: string }
  | { type: 'RegisterS3Connection'; tenantId: string; connection: S3ConnectionRegistered['data'] }
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
    case 'IssueApiKey':
      if (state.apiKeyHashes.includes(command.keyHash)) return none;
      return { expectedVersion, events: [{ ...envelope, type: 'ApiKeyIssued', data: { keyHash: command.keyHash, label: command.label } }] };
    case 'RegisterS3Connection':
      return { expectedVersion, events: [{ ...envelope, type: 'S3ConnectionRegistered', data: command.connection }] };
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
