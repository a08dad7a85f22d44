import { describe, expect, it } from 'vitest';
import { backoffDelayMs, decideAfterAttempt, parseRetryAfter, type AttemptResult, type RetryPolicy } from './webhook-retry.ts';

const policy: RetryPolicy = { baseDelayMs: 1000, maxDelayMs: 60_000, maxAttempts: 5 };
const now = new Date('2026-11-22T10:00:00.000Z');
const decide = (result: AttemptResult, attempt = 1, random = 0.5) => decideAfterAttempt({ result, attempt, policy, now, random });
const response = (statusCode: number, retryAfter?: string): AttemptResult => ({ kind: 'response', statusCode, retryAfter });

describe('decideAfterAttempt', () => {
  it.each([200, 201, 204, 299])('counts %i as delivered', (s) => expect(decide(response(s))).toEqual({ outcome: 'delivered' }));

  it.each([429, 500, 502, 503, 504])('retries %i', (s) =>
    expect(decide(response(s))).toMatchObject({ outcome: 'retrying', error: `HTTP ${s}` }),
  );

  it('retries a timeout and a connection error', () => {
    expect(decide({ kind: 'timeout' })).toMatchObject({ outcome: 'retrying', error: 'timeout' });
    expect(decide({ kind: 'connection-error', message: 'ECONNREFUSED' })).toMatchObject({
      outcome: 'retrying',
      error: 'connection error: ECONNREFUSED',
    });
  });

  it('retries with back-off an attempt that could not be prepared, and gives up like any other', () => {
    const notSent: AttemptResult = { kind: 'not-sent', message: 'S3 connection archive not found.' };
    expect(decide(notSent, 1, 0.5)).toEqual({
      outcome: 'retrying',
      error: 'not sent: S3 connection archive not found.',
      delayMs: backoffDelayMs(1, policy, 0.5),
    });
    expect(decide(notSent, policy.maxAttempts)).toMatchObject({
      outcome: 'failed',
      error: expect.stringMatching(/^not sent: .*gave up after 5 attempts$/),
    });
  });

  it.each([301, 302, 307, 308])('never follows a redirect: %i is a final failure', (s) =>
    expect(decide(response(s))).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/redirect/) }),
  );

  it('stops for good on 410 and marks the URL gone', () => {
    expect(decide(response(410))).toMatchObject({ outcome: 'failed', gone: true });
  });

  it.each([400, 401, 403, 404, 413, 422])('does not retry %i', (s) => expect(decide(response(s))).toMatchObject({ outcome: 'failed' }));

  it('does not retry a target refused by the address policy', () => {
    expect(decide({ kind: 'refused', message: 'private address' })).toMatchObject({ outcome: 'failed', error: 'refused: private address' });
  });

  it('gives up after the last attempt', () => {
    expect(decide(response(500), 5)).toMatchObject({ outcome: 'failed', error: 'HTTP 500; gave up after 5 attempts' });
    expect(decide(response(500), 4)).toMatchObject({ outcome: 'retrying' });
  });

  it('honours Retry-After in seconds and as a date, capped by the longest delay', () => {
    expect(decide(response(503, '7'))).toMatchObject({ outcome: 'retrying', delayMs: 7000 });
    expect(decide(response(429, 'Sun, 22 Nov 2026 10:00:30 GMT'))).toMatchObject({ delayMs: 30_000 });
    expect(decide(response(503, '86400'))).toMatchObject({ delayMs: 60_000 });
    expect(decide(response(503, 'soon'))).toMatchObject({ delayMs: backoffDelayMs(1, policy, 0.5) });
  });
});

describe('backoffDelayMs', () => {
  it('doubles per attempt with jitter in [nominal/2, nominal), and never exceeds the cap', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, policy, 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, policy, 0.999_999))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffDelayMs(30, policy, 0.999_999)).toBe(60_000);
    expect(backoffDelayMs(1000, policy, 0)).toBe(30_000);
  });

  it('spreads the default schedule over about a day', async () => {
    const { DEFAULT_RETRY_POLICY: p } = await import('./webhook-retry.ts');
    const total = (r: number) => Array.from({ length: p.maxAttempts - 1 }, (_, i) => backoffDelayMs(i + 1, p, r)).reduce((a, b) => a + b);
    expect(total(0) / 3600_000).toBeGreaterThan(12);
    expect(total(0.999_999) / 3600_000).toBeLessThan(28);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, ignores the rest', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 12 ', now)).toBe(12_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});
