import type { ApiKeyScope, ApiKeySummary } from '@pressroom/schemas';
import { ALL_SCOPES, PressroomError, apiKeyStatus, notFound, scopesOf, type ApiKeyRecord } from '@pressroom/domain';
import { displayPrefixOf, generateApiKey, hashApiKey } from './api-keys.ts';
import type { CatalogCommands } from './catalog-commands.ts';
import type { Catalog } from './ports/catalog.ts';
import type { Clock, Ids } from './ports/clock.ts';

interface Deps {
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  ids: Ids;
  clock: Clock;
}

/** How long a rotated key keeps working when the caller does not say. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

/** What a listing shows of a key: never the key, never its hash. */
export function keySummary(k: ApiKeyRecord, now: Date): ApiKeySummary {
  return {
    keyId: k.keyId,
    prefix: k.prefix ?? null,
    label: k.label,
    scopes: [...scopesOf(k)],
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt ?? null,
    status: apiKeyStatus(k, now),
    ...(k.expiresAt !== undefined ? { expiresAt: k.expiresAt } : {}),
    ...(k.replacedBy !== undefined ? { replacedBy: k.replacedBy } : {}),
    ...(k.revokedAt !== undefined ? { revokedAt: k.revokedAt } : {}),
  };
}

const newKeyId = (ids: Ids) => `key_${ids.next().replace(/[^A-Za-z0-9]/g, '')}`;

async function summaryOf(deps: Deps, tenantId: string, keyId: string): Promise<ApiKeySummary> {
  const k = (await deps.catalog.listApiKeys(tenantId)).find((x) => x.keyId === keyId);
  if (!k) throw new PressroomError('INTERNAL', `API key ${keyId} missing after it was written.`);
  return keySummary(k, deps.clock.now());
}

/**
 * Key management shared by the tenant's `/v1/keys`, the operator's `/admin/v1/tenants/{id}/keys`
 * and the ops CLI. Every change is a catalog command (ApiKeyIssued, ApiKeyRevoked, ApiKeyRotated);
 * a key id of another tenant is NOT_FOUND, exactly like an unknown one.
 */
export async function listApiKeys(deps: Deps, tenantId: string): Promise<ApiKeySummary[]> {
  const now = deps.clock.now();
  return (await deps.catalog.listApiKeys(tenantId)).map((k) => keySummary(k, now));
}

/** A new key, in clear once: `prs_live_…` (see api-keys.ts). */
export async function createApiKey(
  deps: Deps,
  tenantId: string,
  opts: { label?: string; scopes?: ApiKeyScope[] },
): Promise<{ key: ApiKeySummary; apiKey: string }> {
  const apiKey = generateApiKey();
  const keyId = newKeyId(deps.ids);
  const scopes = opts.scopes ? ALL_SCOPES.filter((s) => opts.scopes?.includes(s)) : undefined;
  await deps.catalogCommands.execute({
    type: 'IssueApiKey',
    tenantId,
    keyHash: hashApiKey(apiKey),
    label: opts.label ?? '',
    keyId,
    prefix: displayPrefixOf(apiKey) as string,
    ...(scopes ? { scopes } : {}),
  });
  return { key: await summaryOf(deps, tenantId, keyId), apiKey };
}

/** Stops the key at once (on every ingress: they all read the view the revocation was applied to). */
export async function revokeApiKey(deps: Deps, tenantId: string, keyId: string): Promise<ApiKeySummary> {
  await deps.catalogCommands.execute({ type: 'RevokeApiKey', tenantId, keyId });
  return summaryOf(deps, tenantId, keyId);
}

/** A new key replaces `keyId`, which keeps working for `overlapSeconds` (default 24 hours). */
export async function rotateApiKey(
  deps: Deps,
  tenantId: string,
  keyId: string,
  overlapSeconds = DEFAULT_ROTATION_OVERLAP_SECONDS,
): Promise<{ key: ApiKeySummary; apiKey: string; previous: ApiKeySummary }> {
  const apiKey = generateApiKey();
  const replacement = { keyId: newKeyId(deps.ids), keyHash: hashApiKey(apiKey), prefix: displayPrefixOf(apiKey) as string };
  const expiresAt = new Date(deps.clock.now().getTime() + overlapSeconds * 1000).toISOString();
  const written = await deps.catalogCommands.execute({
    type: 'RotateApiKey',
    tenantId,
    keyId,
    replacement,
    expiresAt,
    rotationEventId: deps.ids.next(),
  });
  if (written.length === 0) throw notFound(`API key ${keyId}`);
  return { key: await summaryOf(deps, tenantId, replacement.keyId), apiKey, previous: await summaryOf(deps, tenantId, keyId) };
}
