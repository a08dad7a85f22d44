import type { Catalog, WebhookSecrets } from './ports/catalog.ts';
import type { Clock } from './ports/clock.ts';
import type { SecretBox } from './secret-box.ts';
import { generateWebhookSecret } from './webhook-signature.ts';

interface Deps {
  catalog: Catalog;
  secrets: SecretBox;
  clock: Clock;
}

/** A tenant's secrets in clear, as the tenant may see them. */
export interface OpenWebhookSecrets {
  secret: string;
  createdAt: string;
  previous?: { secret: string; expiresAt: string };
}

/** The tenant's signing secrets, created on first use (put-if-absent, so every process agrees). */
export async function ensureWebhookSecrets(deps: Deps, tenantId: string): Promise<OpenWebhookSecrets> {
  const stored =
    (await deps.catalog.getWebhookSecrets(tenantId)) ??
    (await deps.catalog.addWebhookSecrets({
      tenantId,
      current: { sealedSecret: deps.secrets.seal(generateWebhookSecret()), createdAt: deps.clock.now().toISOString() },
    }));
  return openSecrets(deps, stored);
}

/**
 * Replaces the current secret with a new one; the old one keeps signing for `overlapMs`, so
 * receivers can switch without losing a delivery.
 */
export async function rotateWebhookSecret(deps: Deps, tenantId: string, overlapMs: number): Promise<OpenWebhookSecrets> {
  const before = await ensureWebhookSecrets(deps, tenantId);
  const now = deps.clock.now();
  const next: WebhookSecrets = {
    tenantId,
    current: { sealedSecret: deps.secrets.seal(generateWebhookSecret()), createdAt: now.toISOString() },
    previous: { sealedSecret: deps.secrets.seal(before.secret), expiresAt: new Date(now.getTime() + overlapMs).toISOString() },
  };
  await deps.catalog.putWebhookSecrets(next);
  return openSecrets(deps, next);
}

/** The secrets that sign a delivery made now: the current one, and the previous one until it expires. */
export function signingSecrets(open: OpenWebhookSecrets, now: Date): string[] {
  return open.previous && Date.parse(open.previous.expiresAt) > now.getTime() ? [open.secret, open.previous.secret] : [open.secret];
}

function openSecrets(deps: Deps, stored: WebhookSecrets): OpenWebhookSecrets {
  return {
    secret: deps.secrets.open(stored.current.sealedSecret),
    createdAt: stored.current.createdAt,
    ...(stored.previous
      ? { previous: { secret: deps.secrets.open(stored.previous.sealedSecret), expiresAt: stored.previous.expiresAt } }
      : {}),
  };
}
