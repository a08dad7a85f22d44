import type { FieldProblem } from './errors.ts';
import { admitsRender } from './admission.ts';

/** Longest Idempotency-Key accepted (as Stripe and the IETF draft's examples: a UUID fits many times). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** What is wrong with an Idempotency-Key header value, or undefined when it is usable. */
export function idempotencyKeyProblem(key: string): FieldProblem | undefined {
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    return { field: 'Idempotency-Key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters` };
  }
  if (!/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key)) {
    return { field: 'Idempotency-Key', message: 'must be printable ASCII without leading or trailing spaces' };
  }
  return undefined;
}

/**
 * The JSON text of a value with object members sorted by name at every level, so two bodies
 * that differ only in member order (or whitespace) give the same text: the basis of the
 * fingerprint an Idempotency-Key is bound to. Arrays keep their order (it is meaning).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What an attempt carrying a key should do, given the claim the key holds. Pure. */
export type KeyedAttemptDecision =
  /** The key is another request's: refuse (422). */
  | { kind: 'mismatch' }
  /** The earlier attempt was taken by the log: answer with it, render nothing new. */
  | { kind: 'replay'; requestId: string }
  /** The earlier attempt is still being appended: wait for its outcome. */
  | { kind: 'wait' }
  /**
   * The earlier attempt was answered 504 OUTCOME_UNKNOWN and the log has not decided it yet:
   * answer it only once its outcome is known (an outcome first: taken; a withdrawal first: the
   * key is free), else 504 again — never start a second one, never call it accepted early.
   */
  | { kind: 'undecided'; requestId: string };

export function decideKeyedAttempt(
  existing: { requestId: string; fingerprint: string; state: 'pending' | 'accepted' | 'undecided' },
  fingerprint: string,
): KeyedAttemptDecision {
  if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (existing.state === 'accepted') return { kind: 'replay', requestId: existing.requestId };
  if (existing.state === 'undecided') return { kind: 'undecided', requestId: existing.requestId };
  return { kind: 'wait' };
}

/** A keyed RenderRequested as the log holds it: what the Idempotency-Keys are rebuilt from. */
export interface LoggedKeyedRequest {
  tenantId: string;
  requestId: string;
  idempotencyKey: string;
  /** The request's fingerprint; absent on requests written before it was recorded. */
  fingerprint?: string | undefined;
  /** When the ingress created the request (the window counts from it). */
  occurredAt: string;
  acceptBy?: string | undefined;
  /** When the log wrote it, if the log tells. */
  writtenAtMs?: number | undefined;
}

/** A key the rebuilt store must remember as accepted, until `expiresAtMs`. */
export interface RememberedKey {
  tenantId: string;
  key: string;
  requestId: string;
  fingerprint: string;
  expiresAtMs: number;
}

/**
 * Which Idempotency-Keys the log says are taken, as of `nowMs`: per tenant and key, the earliest
 * request that was taken — not withdrawn (the ingress answered 503, or the worker found it
 * written past its `acceptBy`, see admitsRender) — and whose window has not passed. Requests
 * refused and retried with their key leave the accepted retry as the key's holder, as the
 * ingress itself decided at the time. A request written before fingerprints were recorded keeps
 * an empty one: a retry with its key then answers 422 rather than render a request twice. Pure.
 */
export function keysTakenOnLog(
  requests: Iterable<LoggedKeyedRequest>,
  withdrawn: ReadonlySet<string>,
  opts: { nowMs: number; ttlMs: number; skewMs: number },
): RememberedKey[] {
  const holders = new Map<string, LoggedKeyedRequest & { atMs: number }>();
  for (const r of requests) {
    if (withdrawn.has(r.requestId) || !admitsRender(r, r.writtenAtMs, opts.skewMs)) continue;
    const atMs = Date.parse(r.occurredAt);
    if (Number.isNaN(atMs) || atMs + opts.ttlMs <= opts.nowMs) continue;
    const id = JSON.stringify([r.tenantId, r.idempotencyKey]);
    const held = holders.get(id);
    if (!held || atMs < held.atMs || (atMs === held.atMs && r.requestId < held.requestId)) holders.set(id, { ...r, atMs });
  }
  return [...holders.values()].map((r) => ({
    tenantId: r.tenantId,
    key: r.idempotencyKey,
    requestId: r.requestId,
    fingerprint: r.fingerprint ?? '',
    expiresAtMs: r.atMs + opts.ttlMs,
  }));
}
