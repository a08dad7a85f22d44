import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type DeliveryStore } from '@pressroom/core';
import { selfRebuildingDeliveries } from '@pressroom/webhooks';
import type {
  RenderFailed,
  RenderSucceeded,
  RenderWithdrawn,
  WebhookAttempted,
  WebhookAttemptStarted,
  WebhookDelivered,
} from '@pressroom/schemas';
import { requestEvent, spacesPerTest, withFileLog } from './contract-support.ts';

/**
 * One isolated deliveries namespace owned by one test. Every store `open()` returns shares
 * the same data (Redis: a new instance, as another process would have; memory: the same one).
 */
export interface DeliveryStoreSpace {
  open(): Promise<DeliveryStore>;
  dispose(): Promise<void>;
}

/**
 * The contract's clock: a minute boundary an hour ago, so that its results are recent (a store
 * whose records expire keeps the completed results of recent days only).
 */
const BASE_MS = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;
/** `s` seconds after BASE_MS, as the ISO time of an event. */
const t = (s: number) => new Date(BASE_MS + s * 1000).toISOString();

const tenantId = 'tenant-contract';
const url = 'https://hooks.example.com/contract';

const at = (requestId: string, occurredAt: string) => ({ requestId, tenantId, occurredAt });
const hook = (requestId: string) => ({ webhookId: `msg_${requestId}`, url, round: 0, renderStatus: 'SUCCESS' as const });

function succeeded(requestId: string, occurredAt = t(2)): RenderSucceeded {
  return requestEvent('RenderSucceeded', at(requestId, occurredAt), {
    mode: 'async',
    webhook: url,
    artifact: { target: { kind: 'default' }, key: `${tenantId}/${requestId}.pdf`, contentType: 'application/pdf', bytes: 1 },
    executionMs: 5,
    worker: 'contract',
  });
}

function failed(requestId: string): RenderFailed {
  return requestEvent('RenderFailed', at(requestId, t(3)), {
    mode: 'async',
    webhook: url,
    error: { code: 'RENDER_ERROR', message: 'late' },
    executionMs: 5,
    worker: 'contract',
  });
}

function attempted(
  requestId: string,
  statusCode: number,
  opts: { attempt?: number; at?: string; nextAttemptAt?: string } = {},
): WebhookAttempted {
  const when = opts.at ?? t(4);
  return requestEvent('WebhookAttempted', at(requestId, when), {
    ...hook(requestId),
    attempt: opts.attempt ?? 1,
    startedAt: when,
    statusCode,
    durationMs: 3,
    outcome: statusCode === 200 ? 'delivered' : opts.nextAttemptAt ? 'retrying' : 'failed',
    ...(opts.nextAttemptAt ? { nextAttemptAt: opts.nextAttemptAt } : {}),
  });
}

function started(requestId: string, attempt: number, when: string): WebhookAttemptStarted {
  return requestEvent('WebhookAttemptStarted', at(requestId, when), { ...hook(requestId), attempt, startedAt: when });
}

function deliveredEvent(requestId: string): WebhookDelivered {
  return requestEvent('WebhookDelivered', at(requestId, t(4)), {
    ...hook(requestId),
    statusCode: 200,
    durationMs: 3,
    attempts: 1,
  });
}

/** What every DeliveryStore adapter must do (see the port's JSDoc). */
export function deliveryStoreContract(name: string, options: { createSpace(): Promise<DeliveryStoreSpace> }): void {
  describe(`DeliveryStore contract: ${name}`, () => {
    const open = spacesPerTest(() => options.createSpace());

    it('keeps the first completion and stores each webhook event once', async () => {
      const store = await (await open()).open();
      const id = randomUUID();
      const first = succeeded(id);
      const event = attempted(id, 200);
      // Given a completion, a later different one, and an attempt delivered twice
      await store.apply(first);
      await store.apply(failed(id));
      await store.apply(event);
      await store.apply(event);
      // Then the record holds the first completion and one attempt
      const record = await store.get(id);
      expect(record).toMatchObject({ requestId: id, tenantId, completion: first });
      expect(record?.events).toEqual([event]);
      expect(await store.get(randomUUID())).toBeUndefined();
    });

    it('lets the first of withdrawal and outcome hold the terminal slot; a withdrawn request is never listed for replay', async () => {
      const store = await (await open()).open();
      const refused = randomUUID();
      const withdrawn: RenderWithdrawn = requestEvent('RenderWithdrawn', at(refused, t(1)), {
        mode: 'async',
        webhook: url,
        reason: 'NOT_ACCEPTED',
        by: 'contract',
      });
      // Given a withdrawal, then a late outcome of the same request
      await store.apply(withdrawn);
      await store.apply(succeeded(refused));
      // Then the withdrawal holds the slot, and the request is no completed result
      expect((await store.get(refused))?.completion).toEqual(withdrawn);
      expect(await store.listCompleted(tenantId, 0, Date.parse(t(86_400)))).not.toContain(refused);
      // And an outcome that came first keeps the slot against a later withdrawal
      const done = randomUUID();
      const outcome = succeeded(done);
      await store.apply(outcome);
      await store.apply({ ...withdrawn, eventId: randomUUID(), requestId: done });
      expect((await store.get(done))?.completion).toEqual(outcome);
    });

    it('marks a URL gone for its tenant after a 410, and lists completions by time', async () => {
      const store = await (await open()).open();
      const [a, b] = [randomUUID(), randomUUID()];
      await store.apply(succeeded(a, t(1)));
      await store.apply(succeeded(b, t(5)));
      await store.apply(attempted(a, 410));
      expect(await store.isGone(tenantId, url)).toBe(true);
      expect(await store.isGone('another-tenant', url)).toBe(false);
      const ms = (s: number) => Date.parse(t(s));
      expect(await store.listCompleted(tenantId, ms(0), ms(9))).toEqual([a, b]);
      expect(await store.listCompleted(tenantId, ms(2), ms(5))).toEqual([]);
      expect(await store.listCompleted('another-tenant', ms(0), ms(9))).toEqual([]);
    });

    it('hands a due entry to one claimer only, leases it, and hands it out again when the lease ends', async () => {
      const space = await open();
      const [one, two] = [await space.open(), await space.open()];
      const id = randomUUID();
      await one.schedule(id, 1000);
      await one.schedule(id, 50_000, { ifAbsent: true }); // already there: unchanged
      expect(await one.nextDueAt()).toBe(1000);
      const claims = await Promise.all([one.claimDue(2000, 10_000, 10), two.claimDue(2000, 10_000, 10)]);
      expect(claims.flat()).toEqual([id]);
      expect(await two.claimDue(5000, 10_000, 10)).toEqual([]);
      expect(await two.claimDue(12_000, 10_000, 10)).toEqual([id]);
      await two.unschedule(id);
      expect(await one.nextDueAt()).toBeUndefined();
    });

    it('forgets everything on clear, its built marker too', async () => {
      const store = await (await open()).open();
      const id = randomUUID();
      await store.apply(succeeded(id));
      await store.apply(attempted(id, 410));
      await store.schedule(id, 1);
      expect(await store.isBuilt()).toBe(false);
      await store.markBuilt();
      expect(await store.isBuilt()).toBe(true);
      await store.clear();
      expect(await store.get(id)).toBeUndefined();
      expect(await store.isGone(tenantId, url)).toBe(false);
      expect(await store.nextDueAt()).toBeUndefined();
      expect(await store.isBuilt()).toBe(false);
    });

    it('wrapped to rebuild itself: after losing its data, the records and the schedule come back from the log where they were', async () => {
      const space = await open();
      const lease = 10_000;
      const ms = (iso: string) => Date.parse(iso);
      await withFileLog('deliveries', async ({ log, topics }) => {
        // Given on the log: a result never attempted, one retrying, one whose attempt 2 was cut short, one delivered
        const [fresh, retrying, cutShort, done, rescheduled] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
        await log.append(topics.completed, [succeeded(fresh, t(1))]);
        for (const id of [retrying, cutShort, done, rescheduled]) await log.append(topics.completed, [succeeded(id, t(2))]);
        await log.append(topics.webhooks, [started(retrying, 1, t(10)), attempted(retrying, 503, { at: t(10), nextAttemptAt: t(40) })]);
        await log.append(topics.webhooks, [
          started(cutShort, 1, t(10)),
          attempted(cutShort, 503, { at: t(10), nextAttemptAt: t(20) }),
          started(cutShort, 2, t(20)),
        ]);
        await log.append(topics.webhooks, [started(done, 1, t(10)), attempted(done, 200, { at: t(10) }), deliveredEvent(done)]);
        await log.append(topics.webhooks, [
          started(rescheduled, 1, t(10)),
          attempted(rescheduled, 503, { at: t(10), nextAttemptAt: t(30) }),
        ]);
        // And a store that lost everything, where a dispatcher meanwhile scheduled its next attempt of one delivery
        const lost = await space.open();
        await lost.clear();
        await lost.schedule(rescheduled, ms(t(50)));
        const store = selfRebuildingDeliveries(lost, { log, topics, inflightLeaseMs: lease });
        // When due work is asked for, the store rebuilds itself first: each delivery is due when the log says
        expect(await store.claimDue(ms(t(5)), 60_000, 10)).toEqual([fresh]);
        expect(await store.isBuilt()).toBe(true);
        expect(await store.claimDue(ms(t(30)), 60_000, 10)).toEqual([cutShort]); // t(20) + the lease
        expect(await store.claimDue(ms(t(40)), 60_000, 10)).toEqual([retrying]);
        expect(await store.claimDue(ms(t(59)), 60_000, 10)).toEqual([rescheduled]); // the entry that existed is kept
        expect(await store.nextDueAt()).toBeGreaterThan(ms(t(59))); // only the leases: the delivered one is not scheduled
        // And the records are back, in any process sharing the store
        const other = selfRebuildingDeliveries(await space.open(), { log, topics, inflightLeaseMs: lease });
        expect((await other.get(retrying))?.completion?.requestId).toBe(retrying);
        expect((await other.get(cutShort))?.events).toHaveLength(3);
        expect(await other.listCompleted(tenantId, 0, ms(t(59)))).toHaveLength(5);
      });
    });
  });
}
