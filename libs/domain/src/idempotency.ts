import type { FieldProblem } from './errors.ts';

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
  | { kind: 'wait' };

export function decideKeyedAttempt(
  existing: { requestId: string; fingerprint: string; state: 'pending' | 'accepted' },
  fingerprint: string,
): KeyedAttemptDecision {
  if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (existing.state === 'accepted') return { kind: 'replay', requestId: existing.requestId };
  return { kind: 'wait' };
}
