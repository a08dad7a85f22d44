import type { ApiKeyIssued, ApiKeyRevoked, ApiKeyRotated, ApiKeyScope } from '@pressroom/schemas';

/** Every scope: what keys issued before scopes existed (and keys issued without a choice) may do. */
export const ALL_SCOPES: readonly ApiKeyScope[] = ['render', 'manage'];

/**
 * A key as the catalog view keeps it. Only the SHA-256 of a key is ever stored; keys are
 * 256-bit random, so a fast hash is enough. `lastUsedAt` is not a fact of the log: the view
 * keeps it to the minute (see recordKeyUse in the Catalog port).
 */
export interface ApiKeyRecord {
  keyHash: string;
  keyId: string;
  tenantId: string;
  label: string;
  /** The first characters of the key (`prs_live_` and four more); absent for keys we did not generate. */
  prefix?: string;
  scopes: ApiKeyScope[];
  createdAt: string;
  revokedAt?: string;
  /** Set by a rotation: the key works until then. */
  expiresAt?: string;
  replacedBy?: string;
  lastUsedAt?: string;
  /** The sequence of the event that last wrote it (adapters keep it to apply forward only). */
  sequence?: number;
}

/** Keys issued before ids existed get one derived from their event, so it is the same at every replay. */
export function keyIdOf(event: ApiKeyIssued): string {
  return event.data.keyId ?? `key_${event.eventId.replace(/[^A-Za-z0-9]/g, '').slice(-20)}`;
}

export function apiKeyOf(event: ApiKeyIssued): ApiKeyRecord {
  return {
    keyHash: event.data.keyHash,
    keyId: keyIdOf(event),
    tenantId: event.tenantId,
    label: event.data.label,
    ...(event.data.prefix !== undefined ? { prefix: event.data.prefix } : {}),
    scopes: event.data.scopes ? [...event.data.scopes] : [...ALL_SCOPES],
    createdAt: event.occurredAt,
    sequence: event.sequence,
  };
}

/** The record after a revocation or a rotation, or undefined when the event changes nothing (older, or another key). */
export function apiKeyAfter(current: ApiKeyRecord | undefined, event: ApiKeyRevoked | ApiKeyRotated): ApiKeyRecord | undefined {
  if (!current || current.keyId !== event.data.keyId || (current.sequence ?? 0) >= event.sequence) return undefined;
  if (event.type === 'ApiKeyRevoked') return { ...current, revokedAt: current.revokedAt ?? event.occurredAt, sequence: event.sequence };
  return { ...current, expiresAt: event.data.expiresAt, replacedBy: event.data.replacedBy, sequence: event.sequence };
}

export type ApiKeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';

/** Where a key stands at `now`: only `active` and `expiring` keys authenticate. */
export function apiKeyStatus(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): ApiKeyStatus {
  if (key.revokedAt !== undefined) return 'revoked';
  if (key.expiresAt === undefined) return 'active';
  return Date.parse(key.expiresAt) > now.getTime() ? 'expiring' : 'expired';
}

export function keyAuthenticates(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): boolean {
  const status = apiKeyStatus(key, now);
  return status === 'active' || status === 'expiring';
}

/** Scopes of a record written before scopes existed: all of them. */
export function scopesOf(key: Pick<ApiKeyRecord, 'scopes'>): readonly ApiKeyScope[] {
  return key.scopes && key.scopes.length > 0 ? key.scopes : ALL_SCOPES;
}

/** How often one process writes a key's "last used" to the view: once a minute at most. */
export const KEY_USE_RECORD_INTERVAL_MS = 60_000;

/** Whether a use of a key at `now` is worth writing, given when this process last wrote one. */
export function shouldRecordKeyUse(lastWritten: number | undefined, now: number, intervalMs = KEY_USE_RECORD_INTERVAL_MS): boolean {
  return lastWritten === undefined || now - lastWritten >= intervalMs;
}
