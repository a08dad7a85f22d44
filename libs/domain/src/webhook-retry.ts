/**
 * The retry policy of webhook deliveries: what one attempt's result means, and when the next
 * attempt is due. Pure: the time and the random draw are parameters.
 */
export interface RetryPolicy {
  /** Nominal delay before the 2nd attempt; it doubles for each further attempt… */
  baseDelayMs: number;
  /** …up to this cap (also the cap of a receiver's Retry-After). */
  maxDelayMs: number;
  /** Attempts per round (the first delivery, or one replay) before giving up. */
  maxAttempts: number;
}

/** About a day: 13 attempts, delays of 1, 2, 4 … 256 min, then 6 h; 13–27 h in all with jitter. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 60_000, maxDelayMs: 6 * 3600_000, maxAttempts: 13 };

/** What happened to one HTTP attempt, before any interpretation. */
export type AttemptResult =
  | { kind: 'response'; statusCode: number; retryAfter?: string | undefined }
  | { kind: 'timeout' }
  | { kind: 'connection-error'; message: string }
  /** Nothing was sent: the request could not be prepared (e.g. the file link could not be signed). */
  | { kind: 'not-sent'; message: string }
  /** The target was refused before connecting (address or port policy): retrying cannot help. */
  | { kind: 'refused'; message: string };

export type AttemptDecision =
  | { outcome: 'delivered' }
  | { outcome: 'retrying'; error: string; delayMs: number }
  /** `gone` is set on 410: no more deliveries to that URL, ever. */
  | { outcome: 'failed'; error: string; gone?: true };

/**
 * Decides after attempt number `attempt` (1-based, within the round):
 * 2xx delivered; 3xx failed (redirects are never followed); 410 failed and the URL is gone;
 * 429, 5xx, timeout and connection errors retried (Retry-After honoured, capped);
 * any other 4xx and a refused target failed; retrying stops after `maxAttempts`.
 * `random` is a draw in [0, 1) for the jitter.
 */
export function decideAfterAttempt(args: {
  result: AttemptResult;
  attempt: number;
  policy: RetryPolicy;
  now: Date;
  random: number;
}): AttemptDecision {
  const { result, attempt, policy } = args;
  let error: string;
  if (result.kind === 'response') {
    const s = result.statusCode;
    if (s >= 200 && s < 300) return { outcome: 'delivered' };
    error = `HTTP ${s}`;
    if (s === 410) return { outcome: 'failed', error: `${error}: the receiver says the URL is gone`, gone: true };
    if (s >= 300 && s < 400) return { outcome: 'failed', error: `${error}: redirects are not followed` };
    if (s !== 429 && s < 500) return { outcome: 'failed', error };
  } else if (result.kind === 'refused') {
    return { outcome: 'failed', error: `refused: ${result.message}` };
  } else {
    error =
      result.kind === 'timeout'
        ? 'timeout'
        : result.kind === 'not-sent'
          ? `not sent: ${result.message}`
          : `connection error: ${result.message}`;
  }
  if (attempt >= policy.maxAttempts) return { outcome: 'failed', error: `${error}; gave up after ${attempt} attempts` };
  const retryAfter = result.kind === 'response' ? parseRetryAfter(result.retryAfter, args.now) : undefined;
  const delayMs = retryAfter !== undefined ? Math.min(retryAfter, policy.maxDelayMs) : backoffDelayMs(attempt, policy, args.random);
  return { outcome: 'retrying', error, delayMs };
}

/**
 * Exponential back-off with jitter: the nominal delay after attempt n is base·2^(n-1), capped;
 * the actual delay is drawn in [nominal/2, nominal), so retries of many deliveries that failed
 * together spread out, and the schedule's length stays predictable (half to all of nominal).
 */
export function backoffDelayMs(attempt: number, policy: RetryPolicy, random: number): number {
  const nominal = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 40));
  return Math.round(nominal / 2 + (nominal / 2) * Math.min(Math.max(random, 0), 1));
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its day and month (RFC 9110); bare numbers other than delta-seconds are not dates.
  const at = /^[A-Za-z]{3},? /.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}
