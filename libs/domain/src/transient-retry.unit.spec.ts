import { describe, expect, it } from 'vitest';
import { decideTransientRetry, worstCaseRetryMs, type TransientRetryPolicy } from './transient-retry.ts';

const policy: TransientRetryPolicy = { baseDelayMs: 1000, maxDelayMs: 8000, maxAttempts: 6 };
const transient = { retriable: true, message: 'S3 PutObject failed (ECONNREFUSED).' };

describe('decideTransientRetry', () => {
  it('never retries a failure that is not retriable (the document’s own, or a refusal)', () => {
    expect(decideTransientRetry({ failure: { retriable: false, message: 'no' }, attempt: 1, policy, random: 0.5 })).toEqual({
      retry: false,
      reason: 'not-retriable',
    });
  });

  it('retries a transient failure with a delay that doubles, within its jitter band, up to the cap', () => {
    const delays = [1, 2, 3, 4, 5].map((attempt) => {
      const low = decideTransientRetry({ failure: transient, attempt, policy, random: 0 });
      const high = decideTransientRetry({ failure: transient, attempt, policy, random: 0.999999 });
      if (!low.retry || !high.retry) throw new Error('expected a retry');
      expect(low.nextAttempt).toBe(attempt + 1);
      return [low.delayMs, high.delayMs];
    });
    expect(delays).toEqual([
      [500, 1000],
      [1000, 2000],
      [2000, 4000],
      [4000, 8000],
      [4000, 8000],
    ]);
  });

  it('gives up when the attempts are spent', () => {
    expect(decideTransientRetry({ failure: transient, attempt: 6, policy, random: 0.5 })).toEqual({ retry: false, reason: 'spent' });
  });

  it('bounds the whole schedule', () => {
    expect(worstCaseRetryMs(policy)).toBe(1000 + 2000 + 4000 + 8000 + 8000);
  });

  it('never waits zero: no hot loop even with the smallest draw', () => {
    for (let attempt = 1; attempt < policy.maxAttempts; attempt++) {
      const d = decideTransientRetry({ failure: transient, attempt, policy, random: 0 });
      expect(d.retry && d.delayMs).toBeGreaterThanOrEqual(policy.baseDelayMs / 2);
    }
  });
});
