import { describe, expect, it } from 'vitest';
import type { DeliveryView, StatusViewEntry } from '@pressroom/schemas';
import type { DeliveryState } from './delivery.ts';
import { attemptStarted, dueAttempt, goneFailure, recordAttempt, type DueAttempt } from './webhook-attempt.ts';
import type { AttemptResult } from './webhook-retry.ts';

const policy = { baseDelayMs: 60_000, maxDelayMs: 6 * 3600_000, maxAttempts: 3 };
const startedAt = new Date('2026-01-01T00:00:00.000Z');
const now = new Date('2026-01-01T00:00:01.000Z');
const common = { url: 'https://hooks.example.com/x', renderStatus: 'SUCCESS' as const, webhookId: 'msg_r1', round: 0 };

function state(view: Partial<DeliveryView> = {}, nextAttempt = 1, withResult = true): DeliveryState {
  return {
    view: {
      requestId: 'r1',
      tenantId: 't1',
      webhookId: 'msg_r1',
      url: common.url,
      renderStatus: 'SUCCESS',
      state: 'PENDING',
      round: 0,
      attempts: [],
      outcomes: [],
      replays: [],
      ...view,
    },
    ...(withResult ? { result: { requestId: 'r1', tenantId: 't1', state: 'SUCCESS' } as StatusViewEntry } : {}),
    nextAttempt,
    withdrawn: false,
  };
}

/** given a due attempt → when it ended with this result → then what is recorded and scheduled. */
function given(attempt: number) {
  const due = dueAttempt(state({}, attempt)) as DueAttempt;
  return { when: (result: AttemptResult) => recordAttempt({ due, startedAt, result, durationMs: 12, now, policy, random: 0 }) };
}

const attempted = (attempt: number, more: object) => ({
  type: 'WebhookAttempted',
  data: { ...common, attempt, startedAt: startedAt.toISOString(), durationMs: 12, ...more },
});

describe('the webhook attempt', () => {
  it('is due only for a pending delivery whose result and URL are known', () => {
    expect(dueAttempt(undefined)).toBeUndefined();
    expect(dueAttempt(state({ state: 'DELIVERED' }))).toBeUndefined();
    expect(dueAttempt(state({}, 1, false))).toBeUndefined();
    const noUrl = state();
    delete noUrl.view.url;
    expect(dueAttempt(noUrl)).toBeUndefined();
    expect(dueAttempt(state({ round: 2 }, 4))).toMatchObject({ attempt: 4, common: { ...common, round: 2 } });
  });

  it('is recorded as started before anything is sent', () => {
    const due = dueAttempt(state({}, 2)) as DueAttempt;
    expect(attemptStarted(due, startedAt)).toEqual({
      type: 'WebhookAttemptStarted',
      data: { ...common, attempt: 2, startedAt: startedAt.toISOString() },
    });
  });

  it('to a URL gone earlier (410) is not made: the round fails with the attempts it made', () => {
    const due = dueAttempt(state({}, 3)) as DueAttempt;
    expect(goneFailure(due)).toEqual({
      type: 'WebhookFailed',
      data: { ...common, durationMs: 0, reason: 'gone: this URL answered 410 earlier, so nothing more is sent to it', attempts: 2 },
    });
  });

  it('answered 2xx: delivered, the round ends (nothing scheduled)', () => {
    const r = given(1).when({ kind: 'response', statusCode: 204 });
    expect(r.nextAttemptAt).toBeUndefined();
    expect(r.events).toEqual([
      attempted(1, { statusCode: 204, outcome: 'delivered' }),
      { type: 'WebhookDelivered', data: { ...common, statusCode: 204, durationMs: 12, attempts: 1 } },
    ]);
  });

  it('answered 503: retried after the back-off, only the attempt is recorded', () => {
    const r = given(1).when({ kind: 'response', statusCode: 503 });
    // attempt 1, base 60 s, random 0: half the nominal delay
    expect(r.nextAttemptAt).toEqual(new Date(now.getTime() + 30_000));
    expect(r.events).toEqual([
      attempted(1, {
        statusCode: 503,
        error: 'HTTP 503',
        outcome: 'retrying',
        nextAttemptAt: new Date(now.getTime() + 30_000).toISOString(),
      }),
    ]);
  });

  it('a timeout on the last allowed attempt: failed, the round ends', () => {
    const r = given(3).when({ kind: 'timeout' });
    expect(r.nextAttemptAt).toBeUndefined();
    const reason = 'timeout; gave up after 3 attempts';
    expect(r.events).toEqual([
      attempted(3, { error: reason, outcome: 'failed' }),
      { type: 'WebhookFailed', data: { ...common, durationMs: 12, reason, attempts: 3 } },
    ]);
  });

  it('not sent (the request could not be prepared): retried like any other attempt', () => {
    const r = given(1).when({ kind: 'not-sent', message: 'no S3 connection' });
    expect(r.decision).toMatchObject({ outcome: 'retrying', error: 'not sent: no S3 connection' });
    expect(r.events).toHaveLength(1);
  });

  it('answered 410: failed with its status, no retry', () => {
    const r = given(1).when({ kind: 'response', statusCode: 410 });
    expect(r.nextAttemptAt).toBeUndefined();
    expect(r.events[1]).toMatchObject({ type: 'WebhookFailed', data: { statusCode: 410, attempts: 1 } });
  });
});
