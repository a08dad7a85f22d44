import { describe, expect, it } from 'vitest';
import {
  decideAfterRenderAttempt,
  decideBeforeRenderAttempt,
  DEFAULT_RENDER_RETRY_POLICY,
  type RenderRetryPolicy,
} from './render-retry.ts';

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

describe('decideBeforeRenderAttempt', () => {
  it('renders while the attempts already on the log are within the bound', () => {
    for (const attempt of [1, 2, 3]) expect(decideBeforeRenderAttempt({ attempt, policy })).toEqual({ outcome: 'render' });
  });

  it('records RENDER_CRASHED instead of a 4th attempt: three started and none ended (the worker died each time)', () => {
    expect(decideBeforeRenderAttempt({ attempt: 4, policy })).toEqual({
      outcome: 'record-crash',
      message: expect.stringContaining('each of 3 attempts'),
    });
  });

  it('agrees with decideAfterRenderAttempt on where the bound is', () => {
    const lastAllowed = policy.crashRetries + 1;
    expect(decideBeforeRenderAttempt({ attempt: lastAllowed, policy }).outcome).toBe('render');
    expect(decideAfterRenderAttempt({ code: 'RENDER_CRASHED', attempt: lastAllowed, policy }).outcome).toBe('record-crash');
    expect(decideBeforeRenderAttempt({ attempt: lastAllowed + 1, policy }).outcome).toBe('record-crash');
  });
});
