import { setTimeout as sleep } from 'node:timers/promises';
import { decideTransientRetry, type StepFailure, type TransientRetryPolicy } from '@pressroom/domain';

export interface RetryStepOptions {
  policy: TransientRetryPolicy;
  /** A draw in [0, 1) for the jitter. */
  random: () => number;
  /** Aborted when the record is taken away (stop, rebalance): stop waiting and reject. */
  signal?: AbortSignal | undefined;
  /** Whether a failure is transient, and what to say about it. */
  classify(error: unknown): StepFailure;
  /** Told before each wait, to record the retry (best effort: it must not throw). */
  onRetry(retry: { attempt: number; failure: StepFailure; delayMs: number; error: unknown }): Promise<void>;
}

export type StepResult<T> = { ok: true; value: T; attempts: number } | { ok: false; failure: StepFailure; attempts: number };

/**
 * Runs one step of a render (storing the file, appending the outcome), trying again after a
 * transient failure as the retry policy decides. Resolves with the value, or with the last
 * failure once it is final (not retriable, or the attempts are spent). Rejects only when the
 * signal aborts a wait: the caller lets the record go, uncommitted.
 */
export async function retryStep<T>(step: () => Promise<T>, opts: RetryStepOptions): Promise<StepResult<T>> {
  for (let attempt = 1; ; attempt++) {
    opts.signal?.throwIfAborted();
    try {
      return { ok: true, value: await step(), attempts: attempt };
    } catch (error) {
      const failure = opts.classify(error);
      const decision = decideTransientRetry({ failure, attempt, policy: opts.policy, random: opts.random() });
      if (!decision.retry) return { ok: false, failure, attempts: attempt };
      await opts.onRetry({ attempt, failure, delayMs: decision.delayMs, error });
      await sleep(decision.delayMs, undefined, opts.signal ? { signal: opts.signal } : {});
    }
  }
}
