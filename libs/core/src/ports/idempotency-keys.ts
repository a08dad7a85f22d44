import type { BuiltMarker } from './built-marker.ts';
/**
 * What an Idempotency-Key of a render request remembers: the attempt holding it, and whether
 * the log took that attempt.
 */
export interface IdempotencyClaim {
  requestId: string;
  /** Hash of what was asked (endpoint and body): the same key with another request is refused. */
  fingerprint: string;
  /**
   * `pending` while the attempt is being appended; `accepted` once the log took it; `undecided`
   * after it was answered 504 OUTCOME_UNKNOWN, until the log decides it (its outcome or its
   * withdrawal first): held for the whole window, so a retry never starts a second render.
   */
  state: 'pending' | 'accepted' | 'undecided';
}

export type ClaimResult = { won: true } | { won: false; existing: IdempotencyClaim };

/**
 * The Idempotency-Keys of render requests, per tenant.
 *
 * Adapters guarantee, also for concurrent callers in several processes (distributed profile):
 * - `claim` is atomic: of attempts racing for one free key exactly one wins; the others get
 *   the winner's claim. A pending claim lives `pendingTtlMs` (so a holder that died frees it).
 * - `accept` turns the holder's pending claim into an accepted one living `ttlMs` (the window);
 *   `release` frees the key, only if `requestId` still holds it. Neither touches another holder's claim.
 */
export interface IdempotencyKeys extends BuiltMarker {
  claim(tenantId: string, key: string, attempt: { requestId: string; fingerprint: string }, pendingTtlMs: number): Promise<ClaimResult>;
  /** False when the claim was no longer this attempt's (expired and taken by another). */
  /** `fingerprint` is the attempt's, for a claim the store lost meanwhile (it is recreated accepted). */
  /** `state` `undecided` holds the key for an attempt answered 504 OUTCOME_UNKNOWN. */
  accept(
    tenantId: string,
    key: string,
    requestId: string,
    ttlMs: number,
    fingerprint?: string,
    state?: 'accepted' | 'undecided',
  ): Promise<boolean>;
  release(tenantId: string, key: string, requestId: string): Promise<void>;
  get(tenantId: string, key: string): Promise<IdempotencyClaim | undefined>;
  /**
   * Rebuilding from the log: records an accepted claim living `ttlMs`, unless the key is held
   * already (pending or accepted: a live claim is newer knowledge than a replay). Idempotent.
   */
  remember(tenantId: string, key: string, claim: { requestId: string; fingerprint: string }, ttlMs: number): Promise<void>;
  /** Whether the keys were rebuilt from the log since the store was last empty (a marker lost with the data). */
  isBuilt(): Promise<boolean>;
  markBuilt(): Promise<void>;
  /**
   * Rebuilds the keys now when they need it (a self-rebuilding store: see
   * selfRebuildingIdempotencyKeys), so the first keyed request after a start need not wait for
   * the replay; resolves when they are built. Stores that never rebuild have none.
   */
  warmUp?(): Promise<void>;
  close(): Promise<void>;
}
