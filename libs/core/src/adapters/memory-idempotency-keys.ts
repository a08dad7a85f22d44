import type { Clock } from '../ports/clock.ts';
import type { ClaimResult, IdempotencyClaim, IdempotencyKeys } from '../ports/idempotency-keys.ts';

const SWEEP_EVERY_MS = 60_000;

/**
 * The embedded profile's Idempotency-Keys: one process, so a Map (JavaScript runs one call at a
 * time: claim's check-and-set cannot interleave). Expired claims are dropped when read and by a
 * sweep at most once a minute, so memory follows the keys of the last window only.
 */
export function createMemoryIdempotencyKeys(clock: Clock): IdempotencyKeys {
  const claims = new Map<string, { claim: IdempotencyClaim; expiresAt: number }>();
  const id = (tenantId: string, key: string) => JSON.stringify([tenantId, key]);
  const now = () => clock.now().getTime();
  let lastSweep = now();
  // Empty at every start: the first keyed request rebuilds the keys from the log.
  let built = false;

  function live(k: string): IdempotencyClaim | undefined {
    const entry = claims.get(k);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      claims.delete(k);
      return undefined;
    }
    return entry.claim;
  }
  function sweep(): void {
    const t = now();
    if (t - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = t;
    for (const [k, entry] of claims) if (entry.expiresAt <= t) claims.delete(k);
  }

  return {
    async claim(tenantId, key, attempt, pendingTtlMs): Promise<ClaimResult> {
      sweep();
      const k = id(tenantId, key);
      const existing = live(k);
      if (existing) return { won: false, existing: { ...existing } };
      claims.set(k, { claim: { ...attempt, state: 'pending' }, expiresAt: now() + pendingTtlMs });
      return { won: true };
    },
    async accept(tenantId, key, requestId, ttlMs, lostFingerprint = '', state = 'accepted') {
      const k = id(tenantId, key);
      const existing = live(k);
      if (existing && existing.requestId !== requestId) return false;
      const fingerprint = existing?.fingerprint ?? lostFingerprint;
      claims.set(k, { claim: { requestId, fingerprint, state }, expiresAt: now() + ttlMs });
      return true;
    },
    async release(tenantId, key, requestId) {
      const k = id(tenantId, key);
      if (live(k)?.requestId === requestId) claims.delete(k);
    },
    async remember(tenantId, key, claim, ttlMs) {
      const k = id(tenantId, key);
      if (ttlMs > 0 && !live(k)) claims.set(k, { claim: { ...claim, state: 'accepted' }, expiresAt: now() + ttlMs });
    },
    async isBuilt() {
      return built;
    },
    async markBuilt() {
      built = true;
    },
    async get(tenantId, key) {
      const c = live(id(tenantId, key));
      return c ? { ...c } : undefined;
    },
    async close() {
      claims.clear();
      built = false;
    },
  };
}
