import { describe, expect, it } from 'vitest';
import type { PressroomEvent, RenderSucceeded, RenderWithdrawn } from '@pressroom/schemas';
import { admitsRender } from './admission.ts';
import { decideRefusal } from './refusal.ts';
import { evolveStatus, isTerminal, isWithdrawn } from './status.ts';
import { foldDelivery, withdrawsWebhook } from './delivery.ts';

const ids = { requestId: '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10', tenantId: 't1' };
const webhook = 'https://hooks.example.com/r';
/** The envelope of this request's event e<n>, written at 10:00:<second>. */
const head = (n: number, second: string) => ({
  ...ids,
  eventId: `e${n}`,
  version: 1 as const,
  occurredAt: `2026-11-22T10:00:${second}.000Z`,
});
const requested: PressroomEvent = {
  ...head(1, '00'),
  type: 'RenderRequested',
  data: {
    mode: 'async',
    webhook,
    source: { kind: 'html', html: '<p>x</p>' },
    output: 'pdf',
    storage: { kind: 'default' },
    acceptBy: '2026-11-22T10:00:10.000Z',
  },
};
const succeeded: RenderSucceeded = {
  ...head(2, '31'),
  type: 'RenderSucceeded',
  data: {
    mode: 'async',
    webhook,
    artifact: { target: { kind: 'default' }, key: 't1/x.pdf', contentType: 'application/pdf', bytes: 2048 },
    executionMs: 900,
    worker: 'w',
  },
};
const withdrawn: RenderWithdrawn = {
  ...head(3, '30'),
  type: 'RenderWithdrawn',
  data: { mode: 'async', webhook, reason: 'NOT_ACCEPTED', by: 'ingress:h:1' },
};

describe('admitsRender: a request the log wrote after the ingress gave up is not rendered', () => {
  const deadline = Date.parse('2026-11-22T10:00:10.000Z');
  it('renders a request written before its acceptBy, or within the clock skew after it', () => {
    expect(admitsRender({ acceptBy: '2026-11-22T10:00:10.000Z' }, deadline - 5_000, 2_000)).toBe(true);
    expect(admitsRender({ acceptBy: '2026-11-22T10:00:10.000Z' }, deadline, 2_000)).toBe(true);
    expect(admitsRender({ acceptBy: '2026-11-22T10:00:10.000Z' }, deadline + 2_000, 2_000)).toBe(true);
  });
  it('withdraws a request written after acceptBy plus the skew (the caller got 503)', () => {
    expect(admitsRender({ acceptBy: '2026-11-22T10:00:10.000Z' }, deadline + 2_001, 2_000)).toBe(false);
    expect(admitsRender({ acceptBy: '2026-11-22T10:00:10.000Z' }, deadline + 20_000, 0)).toBe(false);
  });
  it('renders requests from before the rule, and on a log that cannot tell when it wrote them', () => {
    expect(admitsRender({}, deadline + 60_000, 0)).toBe(true);
    expect(admitsRender({ acceptBy: '2026-11-22T10:00:10.000Z' }, undefined, 0)).toBe(true);
    expect(admitsRender({ acceptBy: 'not a date' }, deadline + 60_000, 0)).toBe(true);
  });
});

describe('evolveStatus with withdrawals: the first terminal event wins', () => {
  it('a withdrawal before any outcome makes the entry withdrawn and terminal; a late outcome changes nothing', () => {
    const w = evolveStatus(evolveStatus(undefined, requested), withdrawn);
    expect(isWithdrawn(w)).toBe(true);
    expect(isTerminal(w)).toBe(true);
    expect(evolveStatus(w, succeeded)).toEqual(w);
  });
  it('a withdrawal first, the request after it (topics read in any order): still withdrawn', () => {
    const w = evolveStatus(evolveStatus(undefined, withdrawn), requested);
    expect(isWithdrawn(w)).toBe(true);
    expect(w?.state).toBe('ONGOING');
  });
  it('a withdrawal after an outcome changes nothing (the outcome may be delivered already)', () => {
    const done = evolveStatus(evolveStatus(undefined, requested), succeeded);
    expect(evolveStatus(done, withdrawn)).toEqual(done);
    expect(isWithdrawn(done)).toBe(false);
  });
  it('is idempotent: the same withdrawal twice gives the same entry', () => {
    const once = evolveStatus(undefined, withdrawn);
    expect(evolveStatus(once, withdrawn)).toEqual(once);
  });
});

describe('deliveries of a withdrawn request', () => {
  it('withdraws only requests that named a webhook (async)', () => {
    expect(withdrawsWebhook(withdrawn)).toBe(true);
    expect(withdrawsWebhook({ ...withdrawn, data: { mode: 'sync', reason: 'NOT_ACCEPTED', by: 'x' } })).toBe(false);
  });
  it('a withdrawal in the terminal slot leaves nothing to deliver: no result, no URL', () => {
    const state = foldDelivery({ ...ids, completion: withdrawn, events: [] });
    expect(state.withdrawn).toBe(true);
    expect(state.result).toBeUndefined();
    expect(state.view.url).toBeUndefined();
  });
  it('an outcome in the slot is delivered as before', () => {
    const state = foldDelivery({ ...ids, completion: succeeded, events: [] });
    expect(state.withdrawn).toBe(false);
    expect(state.result?.state).toBe('SUCCESS');
  });
});

describe('decideRefusal: what the ingress answers once its withdrawal is on the log', () => {
  const other = { ...succeeded, requestId: '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a11' };
  it('the withdrawal before any outcome of the request: not taken (503)', () => {
    expect(decideRefusal(ids.requestId, [other, withdrawn, succeeded])).toEqual({ kind: 'not-taken' });
  });
  it("the render's outcome first: taken, answered with that outcome", () => {
    expect(decideRefusal(ids.requestId, [succeeded, other, withdrawn])).toEqual({ kind: 'taken', outcome: succeeded });
  });
  it('neither among the records read: unknown (504)', () => {
    expect(decideRefusal(ids.requestId, [other, requested])).toEqual({ kind: 'unknown' });
  });
});
