import type { Catalog, CatalogCommands, Clock, SecretBox, WebhookSecrets } from '@pressroom/core';
import { generateWebhookSecret } from './webhook-signature.ts';

/** What the secret tools need: the catalog holding the sealed secrets, and the key to open them. */
export interface WebhookSecretsDeps {
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  secrets: SecretBox;
  clock: Clock;
}

/** A tenant's secrets in clear, as the tenant may see them. */
export interface OpenWebhookSecrets {
  secret: string;
  createdAt: string;
  previous?: { secret: string; expiresAt: string };
}

/**
 * The tenant's signing secrets, created on first use: a WebhookSecretCreated on the catalog
 * stream, appended expecting the version read, so two processes creating the first secret at
 * once agree on one (the loser decides again and finds the winner's).
 */
export async function ensureWebhookSecrets(deps: WebhookSecretsDeps, tenantId: string): Promise<OpenWebhookSecrets> {
  let stored = await deps.catalog.getWebhookSecrets(tenantId);
  if (!stored) {
    await deps.catalogCommands.ensure({ type: 'CreateWebhookSecret', tenantId, sealedSecret: deps.secrets.seal(generateWebhookSecret()) });
    stored = await deps.catalog.getWebhookSecrets(tenantId);
  }
  if (!stored) throw new Error(`webhook secrets of ${tenantId} missing after they were written`);
  return openSecrets(deps, stored);
}

/**
 * Replaces the current secret with a new one (WebhookSecretRotated); the old one keeps signing
 * for `overlapMs`, so receivers can switch without losing a delivery. Decided on the stream's
 * version: a rotation that raced another one answers CONFLICT instead of losing either.
 */
export async function rotateWebhookSecret(deps: WebhookSecretsDeps, tenantId: string, overlapMs: number): Promise<OpenWebhookSecrets> {
  await ensureWebhookSecrets(deps, tenantId);
  const now = deps.clock.now();
  await deps.catalogCommands.execute({
    type: 'RotateWebhookSecret',
    tenantId,
    sealedSecret: deps.secrets.seal(generateWebhookSecret()),
    previousExpiresAt: new Date(now.getTime() + overlapMs).toISOString(),
  });
  const stored = await deps.catalog.getWebhookSecrets(tenantId);
  if (!stored) throw new Error(`webhook secrets of ${tenantId} missing after a rotation`);
  return openSecrets(deps, stored);
}

/** The secrets that sign a delivery made now: the current one, and the previous one until it expires. */
export function signingSecrets(open: OpenWebhookSecrets, now: Date): string[] {
  return open.previous && Date.parse(open.previous.expiresAt) > now.getTime() ? [open.secret, open.previous.secret] : [open.secret];
}

function openSecrets(deps: WebhookSecretsDeps, stored: WebhookSecrets): OpenWebhookSecrets {
  return {
    secret: deps.secrets.open(stored.current.sealedSecret),
    createdAt: stored.current.createdAt,
    ...(stored.previous
      ? { previous: { secret: deps.secrets.open(stored.previous.sealedSecret), expiresAt: stored.previous.expiresAt } }
      : {}),
  };
}
