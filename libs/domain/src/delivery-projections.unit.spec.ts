import { describe, expect, it } from 'vitest';
import type { RenderSucceeded, RenderWithdrawn, WebhookAttempted } from '@pressroom/schemas';
import {
  completedDayGroups,
  completedDeliveryByDayProjection,
  completedDeliveryProjection,
  deliveryRecordProjection,
  goneUrlProjection,
} from './delivery-projections.ts';

const succeeded: RenderSucceeded = {
  eventId: 'e1',
  type: 'RenderSucceeded',
  version: 1,
  occurredAt: '2030-01-01T00:00:02.000Z',
  requestId: 'r1',
  tenantId: 't1',
  data: {
    mode: 'async',
    webhook: 'https://hooks.example.com/a',
    artifact: { target: { kind: 'default' }, key: 't1/r1.pdf', contentType: 'application/pdf', bytes: 1 },
    executionMs: 5,
    worker: 'w',
  },
};
const withdrawn: RenderWithdrawn = {
  eventId: 'e2',
  type: 'RenderWithdrawn',
  version: 1,
  occurredAt: '2030-01-01T00:00:01.000Z',
  requestId: 'r1',
  tenantId: 't1',
  data: { mode: 'async', webhook: 'https://hooks.example.com/a', reason: 'NOT_ACCEPTED', by: 'ingress' },
};
const gone: WebhookAttempted = {
  eventId: 'e3',
  type: 'WebhookAttempted',
  version: 1,
  occurredAt: '2030-01-01T00:00:04.000Z',
  requestId: 'r1',
  tenantId: 't1',
  data: {
    webhookId: 'msg_r1',
    url: 'https://hooks.example.com/a',
    round: 0,
    attempt: 1,
    renderStatus: 'SUCCESS',
    startedAt: '2030-01-01T00:00:04.000Z',
    statusCode: 410,
    durationMs: 3,
    outcome: 'failed',
  },
};

describe('deliveryRecordProjection', () => {
  it('keeps the first terminal event and each webhook event once, returning the same record when nothing changes', () => {
    expect(deliveryRecordProjection.canHandle(succeeded)).toBe(true);
    expect(deliveryRecordProjection.canHandle({ ...withdrawn, data: { ...withdrawn.data, mode: 'sync' } })).toBe(false);
    expect(deliveryRecordProjection.keyOf(gone)).toBe('r1');
    // Given a withdrawal, when the outcome and an attempt follow (the attempt twice)
    const first = deliveryRecordProjection.evolve(undefined, withdrawn)!;
    expect(deliveryRecordProjection.evolve(first, succeeded)).toBe(first);
    const attempted = deliveryRecordProjection.evolve(first, gone)!;
    // Then the withdrawal holds the slot, and the attempt is there once
    expect(attempted).toEqual({ requestId: 'r1', tenantId: 't1', completion: withdrawn, events: [gone] });
    expect(deliveryRecordProjection.evolve(attempted, gone)).toBe(attempted);
    expect(first.events).toEqual([]); // the record before is a value: not changed
  });
});

describe('completedDeliveryProjection and goneUrlProjection', () => {
  it('write once per tenant: a completion by its time, a URL that answered 410', () => {
    expect(completedDeliveryProjection.keyOf(succeeded)).toEqual({ group: 't1', id: 'r1' });
    const entry = completedDeliveryProjection.evolve(undefined, succeeded)!;
    expect(entry).toEqual({ requestId: 'r1', completedAtMs: Date.parse(succeeded.occurredAt) });
    expect(completedDeliveryProjection.evolve(entry, { ...succeeded, occurredAt: '2031-01-01T00:00:00.000Z' })).toBe(entry);
    expect(completedDeliveryProjection.canHandle(withdrawn)).toBe(false);

    expect(goneUrlProjection.canHandle(gone)).toBe(true);
    expect(goneUrlProjection.canHandle({ ...gone, data: { ...gone.data, statusCode: 500 } })).toBe(false);
    expect(goneUrlProjection.keyOf(gone)).toEqual({ group: 't1', id: 'https://hooks.example.com/a' });
    const url = goneUrlProjection.evolve(undefined, gone)!;
    expect(goneUrlProjection.evolve(url, { ...gone, eventId: 'e4' })).toBe(url);
  });
});

describe('the completed results by day (a store whose records expire)', () => {
  const day = 86_400_000;
  const keep = 14 * day;

  it('groups a completion by tenant and UTC day, and keeps each day as long as asked', () => {
    const byDay = completedDeliveryByDayProjection(keep);
    // 2030-01-01T00:00:02Z is day 21915 since the epoch
    expect(byDay.keyOf(succeeded)).toEqual({ group: 't1:21915', id: 'r1' });
    expect(byDay.keyOf({ ...succeeded, occurredAt: '2029-12-31T23:59:59.999Z' })).toEqual({ group: 't1:21914', id: 'r1' });
    expect(byDay.ttlMsOf!(byDay.evolve(undefined, succeeded)!)).toBe(keep);
    expect(byDay.evolve(undefined, succeeded)).toEqual(completedDeliveryProjection.evolve(undefined, succeeded));
  });

  it('reads the days of a range that the index can still hold, and no more', () => {
    const now = Date.parse('2030-01-20T12:00:00.000Z'); // day 21934
    // A range within the last days: each of its days
    expect(completedDayGroups('t1', Date.parse('2030-01-18T23:00:00.000Z'), Date.parse('2030-01-20T00:00:00.000Z'), now, keep)).toEqual([
      't1:21932',
      't1:21933',
    ]);
    // A range of years: from the oldest day kept to tomorrow, not a read per day of it
    const all = completedDayGroups('t1', 0, Date.parse('2100-01-01T00:00:00.000Z'), now, keep);
    expect(all[0]).toBe('t1:21920');
    expect(all.at(-1)).toBe('t1:21935');
    expect(all).toHaveLength(16);
    // A range wholly before the days kept, or after tomorrow: nothing to read
    expect(completedDayGroups('t1', 0, Date.parse('2030-01-01T00:00:00.000Z'), now, keep)).toEqual([]);
    expect(completedDayGroups('t1', Date.parse('2030-01-25T00:00:00.000Z'), Date.parse('2030-01-26T00:00:00.000Z'), now, keep)).toEqual([]);
  });
});
