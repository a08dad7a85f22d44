import { describe, expect, it } from 'vitest';
import { decideAfterRenderAttempt, DEFAULT_RENDER_RETRY_POLICY, type RenderRetryPolicy } from './render-retry.ts';

const policy: RenderRetryPolicy = { crashRetries: 2, baseDelayMs: 500, maxDelayMs: 1_500 };

describe('decideAfterRenderAttempt', () => {
  it.each(['TEMPLATE_ERROR', 'RENDER_TIMEOUT', 'OUTPUT_TOO_LARGE', 'STORAGE_ERROR', 'RENDER_ERROR'])(
    'records a %s at once: the render itself answered',
    (code) => {
      expect(decideAfterRenderAttempt({ code, attempt: 1, policy })).toEqual({ outcome: 'record' });
    },
  );

  it('retries a crash with doubling back-off while retries remain', () => {
    expect(decideAfterRenderAttempt({ code: 'RENDER_CRASHED', attempt: 1, policy })).toEqual({ outcome: 'retry', delayMs: 500 });
    expect(decideAfterRenderAttempt({ code: 'RENDER_CRASHED', attempt: 2, policy })).toEqual({ outcome: 'retry', delayMs: 1_000 });
  });

  it('caps the back-off', () => {
    const many = { ...policy, crashRetries: 10 };
    expect(decideAfterRenderAttempt({ code: 'RENDER_CRASHED', attempt: 5, policy: many })).toEqual({ outcome: 'retry', delayMs: 1_500 });
  });

  it('records RENDER_CRASHED once the retries are spent: a poison message ends', () => {
    const decision = decideAfterRenderAttempt({ code: 'RENDER_CRASHED', attempt: 3, policy });
    expect(decision).toEqual({ outcome: 'record-crash', message: expect.stringContaining('each of 3 attempts') });
  });

  it('with no retries, records the first crash', () => {
    const decision = decideAfterRenderAttempt({ code: 'RENDER_CRASHED', attempt: 1, policy: { ...policy, crashRetries: 0 } });
    expect(decision).toEqual({ outcome: 'record-crash', message: expect.stringContaining('its only attempt') });
  });

  it('bounds the attempts by default (the default policy retries twice)', () => {
    const outcomes = [1, 2, 3].map(
      (attempt) => decideAfterRenderAttempt({ code: 'RENDER_CRASHED', attempt, policy: DEFAULT_RENDER_RETRY_POLICY }).outcome,
    );
    expect(outcomes).toEqual(['retry', 'retry', 'record-crash']);
  });
});
