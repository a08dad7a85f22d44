import { backoffDelayMs } from './webhook-retry.ts';

/**
 * When a render step that failed for a reason outside the document (storage unreachable, the
 * log or the registry blipping) is tried again. Pure: the random draw is a parameter.
 */
export interface TransientRetryPolicy {
  /** Nominal delay before the 2nd attempt; it doubles for each further attempt… */
  baseDelayMs: number;
  /** …up to this cap. */
  maxDelayMs: number;
  /** Attempts of one step in all (the first included) before the failure becomes final. */
  maxAttempts: number;
}

/**
 * About two and a half minutes of nominal delays (1, 2, 4, 8, 16, then 30 s each): rides out
 * a storage or broker restart of a minute or two while a record waits, heartbeating, in its
 * handler. Jitter makes the real schedule half to all of that.
 */
export const DEFAULT_TRANSIENT_RETRY_POLICY: TransientRetryPolicy = { baseDelayMs: 1_000, maxDelayMs: 30_000, maxAttempts: 10 };

/** A failure as the retry decision sees it: whether trying again can help, and what it was. */
export interface StepFailure {
  retriable: boolean;
  message: string;
}

export type TransientRetryDecision =
  | { retry: true; delayMs: number; nextAttempt: number }
  /** `spent` tells apart "retries ran out" from "retrying cannot help". */
  | { retry: false; reason: 'not-retriable' | 'spent' };

/**
 * Decides after attempt number `attempt` (1-based) of a step failed: a failure that is the
 * document's own or needs someone to change configuration (not retriable) is final at once;
 * a transient one is retried after an exponential, jittered, capped delay until `maxAttempts`.
 * The jitter spreads out the retries of many renders that failed together (no thundering herd),
 * and the cap plus the attempt limit bound both each wait and the whole schedule (no hot loop,
 * no endless wait).
 */
export function decideTransientRetry(args: {
  failure: StepFailure;
  attempt: number;
  policy: TransientRetryPolicy;
  random: number;
}): TransientRetryDecision {
  const { failure, attempt, policy } = args;
  if (!failure.retriable) return { retry: false, reason: 'not-retriable' };
  if (attempt >= policy.maxAttempts) return { retry: false, reason: 'spent' };
  return { retry: true, delayMs: backoffDelayMs(attempt, policy, args.random), nextAttempt: attempt + 1 };
}

/** The longest a whole retry schedule can take (every delay at its nominal maximum). */
export function worstCaseRetryMs(policy: TransientRetryPolicy): number {
  let total = 0;
  for (let attempt = 1; attempt < policy.maxAttempts; attempt++) total += backoffDelayMs(attempt, policy, 1);
  return total;
}
