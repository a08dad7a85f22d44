import { describe, expect, it } from 'vitest';
import type { RenderCompleted, WebhookEvent } from '@pressroom/schemas';
import { deliveryDueAt, foldDelivery, goneUrlOf, webhookIdFor } from './delivery.ts';

const requestId = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10';
const tenantId = 't1';
const url = 'https://hooks.example.com/r';
let n = 0;
const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();
const base = (s: number) => ({ eventId: `e${String(++n).padStart(4, '0')}`, version: 1 as const, occurredAt: at(s), requestId, tenantId });

const succeeded: RenderCompleted = {
  ...base(1),
  type: 'RenderSucceeded',
  data: {
    mode: 'async',
    webhook: url,
    artifact: { target: { kind: 'default' }, key: 't1/x.pdf', contentType: 'application/pdf', bytes: 10 },
    executionMs: 5,
    worker: 'w',
  },
};
const attempted = (
  s: number,
  round: number,
  attempt: number,
  outcome: 'delivered' | 'retrying' | 'failed',
  statusCode?: number,
): WebhookEvent => ({
  ...base(s),
  type: 'WebhookAttempted',
  data: {
    webhookId: webhookIdFor(requestId),
    url,
    round,
    attempt,
    renderStatus: 'SUCCESS',
    startedAt: at(s),
    ...(statusCode ? { statusCode } : {}),
    durationMs: 3,
    outcome,
    ...(outcome === 'retrying' ? { nextAttemptAt: at(s + 10) } : {}),
  },
});
const delivered = (s: number, round: number): WebhookEvent => ({
  ...base(s),
  type: 'WebhookDelivered',
  data: { url, statusCode: 200, durationMs: 3, renderStatus: 'SUCCESS', round, webhookId: webhookIdFor(requestId) },
});
const attemptStarted = (s: number, round: number, attempt: number): WebhookEvent => ({
  ...base(s),
  type: 'WebhookAttemptStarted',
  data: { webhookId: webhookIdFor(requestId), url, round, attempt, renderStatus: 'SUCCESS', startedAt: at(s) },
});
const replay = (s: number): WebhookEvent => ({
  ...base(s),
  type: 'WebhookReplayRequested',
  data: { requestedBy: 'api', replayId: `r${s}` },
});

describe('foldDelivery', () => {
  it('shows an attempt that started but never ended with an unknown outcome, and numbers the next one after it', () => {
    const cut = foldDelivery({ requestId, tenantId, completion: succeeded, events: [attemptStarted(2, 0, 1)] });
    expect(cut.view.state).toBe('PENDING');
    expect(cut.view.attempts).toEqual([{ round: 0, attempt: 1, startedAt: at(2), outcome: 'unknown' }]);
    expect(cut.nextAttempt).toBe(2);
    const after = foldDelivery({
      requestId,
      tenantId,
      completion: succeeded,
      events: [attemptStarted(2, 0, 1), attemptStarted(30, 0, 2), attempted(30, 0, 2, 'delivered', 200), delivered(30, 0)],
    });
    expect(after.view.state).toBe('DELIVERED');
    expect(after.view.attempts.map((a) => [a.attempt, a.outcome, a.statusCode])).toEqual([
      [1, 'unknown', undefined],
      [2, 'delivered', 200],
    ]);
  });

  it('merges a started attempt with its recorded end', () => {
    const done = foldDelivery({
      requestId,
      tenantId,
      completion: succeeded,
      events: [attemptStarted(2, 0, 1), attempted(2, 0, 1, 'retrying', 500)],
    });
    expect(done.view.attempts).toHaveLength(1);
    expect(done.view.attempts[0]).toMatchObject({ attempt: 1, outcome: 'retrying', statusCode: 500 });
    expect(done.nextAttempt).toBe(2);
  });

  it('is PENDING with the next due time while retrying, DELIVERED after the final event', () => {
    const retrying = foldDelivery({ requestId, tenantId, completion: succeeded, events: [attempted(2, 0, 1, 'retrying', 500)] });
    expect(retrying.view).toMatchObject({ state: 'PENDING', round: 0, nextAttemptAt: at(12), renderStatus: 'SUCCESS', url });
    expect(retrying.nextAttempt).toBe(2);
    const done = foldDelivery({
      requestId,
      tenantId,
      completion: succeeded,
      events: [attempted(2, 0, 1, 'retrying', 500), attempted(12, 0, 2, 'delivered', 200), delivered(12, 0)],
    });
    expect(done.view.state).toBe('DELIVERED');
    expect(done.view.nextAttemptAt).toBeUndefined();
    expect(done.view.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    expect(done.result?.state).toBe('SUCCESS');
  });

  it('gives the same view whatever the order and however often events arrive', () => {
    const events = [attempted(2, 0, 1, 'retrying', 500), attempted(12, 0, 2, 'delivered', 200), delivered(12, 0), replay(20)];
    const a = foldDelivery({ requestId, tenantId, completion: succeeded, events });
    const b = foldDelivery({ requestId, tenantId, completion: succeeded, events: [...events].reverse().concat(events) });
    expect(b).toEqual(a);
  });

  it('starts a new round on replay; a late outcome of the old round does not end it', () => {
    const s = foldDelivery({
      requestId,
      tenantId,
      completion: succeeded,
      events: [attempted(2, 0, 1, 'retrying', 503), replay(5), attempted(6, 0, 2, 'delivered', 200), delivered(6, 0)],
    });
    expect(s.view).toMatchObject({ round: 1, state: 'PENDING' });
    expect(s.nextAttempt).toBe(1);
    expect(s.view.replays).toHaveLength(1);
    expect(s.view.webhookId).toBe(webhookIdFor(requestId));
  });

  it('marks a URL gone on 410 only', () => {
    expect(goneUrlOf(attempted(2, 0, 1, 'failed', 410))).toBe(url);
    expect(goneUrlOf(attempted(2, 0, 1, 'failed', 404))).toBeUndefined();
  });
});

describe('deliveryDueAt: the schedule rebuilt from the log', () => {
  const lease = 15_000;
  const due = (...events: WebhookEvent[]) => deliveryDueAt(foldDelivery({ requestId, tenantId, completion: succeeded, events }), lease);

  it('a result never attempted is due from its completion', () => {
    expect(due()).toBe(Date.parse(succeeded.occurredAt));
  });

  it('after a retrying attempt, at the time that attempt named', () => {
    expect(due(attemptStarted(20, 0, 1), attempted(21, 0, 1, 'retrying', 503))).toBe(Date.parse(at(31)));
  });

  it('an attempt started with no recorded end is due when its lease would run out, and only the latest one counts', () => {
    expect(due(attemptStarted(20, 0, 1))).toBe(Date.parse(at(20)) + lease);
    // A cut-short attempt 1, then attempt 2 that is retrying: attempt 2's time, not the lease
    expect(due(attemptStarted(20, 0, 1), attemptStarted(40, 0, 2), attempted(41, 0, 2, 'retrying', 500))).toBe(Date.parse(at(51)));
    // A retrying attempt 1, then attempt 2 started and cut short: the lease of attempt 2
    expect(due(attemptStarted(20, 0, 1), attempted(21, 0, 1, 'retrying', 500), attemptStarted(31, 0, 2))).toBe(Date.parse(at(31)) + lease);
  });

  it('nothing is due once the round ended, the request was withdrawn, or no result is known', () => {
    expect(due(attemptStarted(20, 0, 1), attempted(21, 0, 1, 'delivered', 200), delivered(21, 0))).toBeUndefined();
    expect(deliveryDueAt(foldDelivery({ requestId, tenantId, events: [] }), lease)).toBeUndefined();
    const withdrawn = {
      ...base(0),
      type: 'RenderWithdrawn' as const,
      data: { mode: 'async' as const, webhook: url, reason: 'NOT_ACCEPTED' as const, by: 'ingress' },
    };
    expect(deliveryDueAt(foldDelivery({ requestId, tenantId, completion: withdrawn, events: [] }), lease)).toBeUndefined();
  });

  it('a replay after a delivered round starts a new round, due from the replay request', () => {
    expect(due(attemptStarted(20, 0, 1), attempted(21, 0, 1, 'delivered', 200), delivered(21, 0), replay(50))).toBe(Date.parse(at(50)));
    expect(due(attempted(21, 0, 1, 'delivered', 200), delivered(21, 0), replay(50), attemptStarted(51, 1, 1))).toBe(
      Date.parse(at(51)) + lease,
    );
  });
});
