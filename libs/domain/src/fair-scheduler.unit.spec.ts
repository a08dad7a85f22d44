import { describe, expect, it } from 'vitest';
import { FairScheduler, planRenderCap, tenantRenderCap, type Dispatched } from './fair-scheduler.ts';

const jobs = (started: Dispatched<string>[]) => started.map((d) => d.job);

describe('FairScheduler', () => {
  it("keeps a tenant at its cap and gives the free slot to another tenant's job behind it", () => {
    // Given two slots, and a tenant with cap 1 whose jobs arrived first
    const s = new FairScheduler<string>({ sync: 2, async: 2 });
    s.submit('sync', 'a', 1, 'a1');
    s.submit('sync', 'a', 1, 'a2');
    s.submit('sync', 'a', 1, 'a3');
    s.submit('sync', 'b', 1, 'b1');

    // Then one of a's starts, and b's, read past a's waiting ones
    expect(jobs(s.dispatch())).toEqual(['a1', 'b1']);
    expect(s.inFlight('a')).toBe(1);
    expect(s.waiting('sync')).toBe(2);
    // And nothing else can start until one finishes
    expect(s.dispatch()).toEqual([]);
  });

  it('takes turns across tenants (round-robin), each tenant in its own arrival order', () => {
    const s = new FairScheduler<string>({ sync: 1, async: 1 });
    for (const job of ['a1', 'a2', 'a3']) s.submit('async', 'a', 5, job);
    for (const job of ['b1', 'b2']) s.submit('async', 'b', 5, job);
    s.submit('async', 'c', 5, 'c1');

    const order: string[] = [];
    for (let started = s.dispatch(); started.length > 0; started = s.dispatch()) {
      for (const d of started) {
        order.push(d.job);
        s.finish(d.lane, d.tenantId);
      }
    }
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('counts a tenant’s cap across both lanes, and serves the sync lane first', () => {
    const s = new FairScheduler<string>({ sync: 2, async: 2 });
    s.submit('async', 'a', 1, 'a-async');
    s.submit('sync', 'a', 1, 'a-sync');

    // Then only one of a's runs, the sync one
    expect(s.dispatch()).toEqual([{ lane: 'sync', tenantId: 'a', job: 'a-sync' }]);
    // And when it finishes, the async one gets the unit of cap
    s.finish('sync', 'a');
    expect(s.dispatch()).toEqual([{ lane: 'async', tenantId: 'a', job: 'a-async' }]);
  });

  it('keeps the turn of a tenant that was skipped at its cap', () => {
    const s = new FairScheduler<string>({ sync: 3, async: 1 });
    s.submit('sync', 'a', 1, 'a1');
    s.submit('sync', 'a', 1, 'a2');
    s.submit('sync', 'b', 3, 'b1');
    s.submit('sync', 'b', 3, 'b2');
    s.submit('sync', 'c', 3, 'c1');
    // a1, b1, c1 start (a2 skipped at a's cap, b2 behind c in the line)
    expect(jobs(s.dispatch())).toEqual(['a1', 'b1', 'c1']);
    // When a1 finishes, a2 is first in line, ahead of b2
    s.finish('sync', 'a');
    s.finish('sync', 'b');
    expect(jobs(s.dispatch())).toEqual(['a2', 'b2']);
  });

  it('a slot freed on one lane never starts a job of the other lane', () => {
    const s = new FairScheduler<string>({ sync: 1, async: 1 });
    s.submit('async', 'a', 5, 'a1');
    s.submit('async', 'b', 5, 'b1');
    expect(jobs(s.dispatch())).toEqual(['a1']);
    s.submit('sync', 'c', 5, 'c1');
    expect(jobs(s.dispatch())).toEqual(['c1']);
    s.finish('sync', 'c');
    expect(s.dispatch()).toEqual([]);
    s.finish('async', 'a');
    expect(jobs(s.dispatch())).toEqual(['b1']);
  });

  it('withdraws a job that has not started, and not one that has', () => {
    const s = new FairScheduler<string>({ sync: 1, async: 1 });
    s.submit('sync', 'a', 1, 'a1');
    s.submit('sync', 'a', 1, 'a2');
    s.submit('sync', 'b', 1, 'b1');
    expect(jobs(s.dispatch())).toEqual(['a1']);
    expect(s.withdraw('sync', 'a', 'a1')).toBe(false);
    expect(s.withdraw('sync', 'b', 'b1')).toBe(true);
    expect(s.waiting('sync')).toBe(1);
    s.finish('sync', 'a');
    expect(jobs(s.dispatch())).toEqual(['a2']);
  });

  it('refuses a finish it has no running job for (a bookkeeping bug must be loud)', () => {
    const s = new FairScheduler<string>({ sync: 1, async: 1 });
    expect(() => s.finish('sync', 'a')).toThrow(/without a running job/);
    expect(() => new FairScheduler<string>({ sync: 0, async: 1 })).toThrow(RangeError);
  });

  it('treats a cap below 1 as 1: a tenant always gets to render', () => {
    const s = new FairScheduler<string>({ sync: 2, async: 1 });
    s.submit('sync', 'a', 0, 'a1');
    s.submit('sync', 'a', 0, 'a2');
    expect(jobs(s.dispatch())).toEqual(['a1']);
  });
});

describe('FairScheduler with asyncYieldMs (the async lane gives way to the sync lane)', () => {
  const yielding = (slots = { sync: 2, async: 2 }) => new FairScheduler<string>(slots, { asyncYieldMs: 100, asyncYieldMaxMs: 5000 });

  it('starts no async render while a sync render runs, nor within the window after it ended', () => {
    // Given free slots on both lanes, one sync render running and async work waiting
    const s = yielding();
    s.submit('sync', 'a', 2, 'a-sync');
    expect(jobs(s.dispatch(0))).toEqual(['a-sync']);
    s.submit('async', 'b', 2, 'b-async');
    // Then nothing async starts while it runs
    expect(s.dispatch(10)).toEqual([]);
    expect(s.asyncHeldUntil(10)).toBe(5000);
    // When it ends at 50, the async lane still waits until 150
    s.finish('sync', 'a', 50);
    expect(s.dispatch(60)).toEqual([]);
    expect(s.asyncHeldUntil(60)).toBe(150);
    expect(s.dispatch(149)).toEqual([]);
    // Then starts at 150
    expect(jobs(s.dispatch(150))).toEqual(['b-async']);
    expect(s.asyncHeldUntil(150)).toBeUndefined();
  });

  it('holds the async lane while a sync render waits for a slot, not for its own tenant’s cap', () => {
    const s = yielding({ sync: 1, async: 2 });
    // Given the one sync slot taken and another sync render waiting for it
    s.submit('sync', 'a', 2, 'a-sync');
    expect(jobs(s.dispatch(0))).toEqual(['a-sync']);
    s.submit('sync', 'b', 2, 'b-sync');
    s.submit('async', 'c', 2, 'c-async');
    s.finish('sync', 'a', 10); // ... ended long ago, a-sync's start too
    s.submit('sync', 'a', 2, 'a-sync2');
    expect(jobs(s.dispatch(6000))).toEqual(['b-sync']);
    // Then c waits while a-sync2 waits for the slot
    expect(s.dispatch(6001)).toEqual([]);
    // Given instead tenant d at its cap of 1 with an async render, its sync render waiting for it
    const t = yielding();
    t.submit('async', 'd', 1, 'd-async');
    expect(jobs(t.dispatch(0))).toEqual(['d-async']);
    t.submit('sync', 'd', 1, 'd-sync');
    t.submit('async', 'e', 1, 'e-async');
    // Then e's async render starts: d's sync one could not start if it had the slot
    expect(jobs(t.dispatch(1))).toEqual(['e-async']);
  });

  it('lets a sync render start beside running async ones (only new async starts give way)', () => {
    const s = yielding();
    s.submit('async', 'a', 2, 'a1');
    s.submit('async', 'a', 2, 'a2');
    expect(jobs(s.dispatch(0))).toEqual(['a1', 'a2']);
    s.submit('sync', 'b', 2, 'b-sync');
    expect(jobs(s.dispatch(5))).toEqual(['b-sync']);
  });

  it('a sync render running past asyncYieldMaxMs (a slow or hostile document) no longer holds the lane', () => {
    const s = yielding();
    s.submit('sync', 'a', 1, 'a-spin');
    expect(jobs(s.dispatch(0))).toEqual(['a-spin']);
    s.submit('async', 'b', 1, 'b-async');
    expect(s.dispatch(4999)).toEqual([]);
    expect(jobs(s.dispatch(5000))).toEqual(['b-async']);
  });

  it('under sync traffic without gaps, one async render starts per asyncYieldMaxMs', () => {
    const s = yielding({ sync: 1, async: 2 });
    for (const job of ['b1', 'b2', 'b3']) s.submit('async', 'b', 3, job);
    const started: string[] = [];
    // Given a sync render of 50 ms every 60 ms from t=0 to t=12 000
    for (let t = 0; t < 12_000; t += 60) {
      s.submit('sync', 'a', 1, `a@${t}`);
      started.push(...jobs(s.dispatch(t)).filter((j) => j.startsWith('b')));
      s.finish('sync', 'a', t + 50);
      started.push(...jobs(s.dispatch(t + 50)).filter((j) => j.startsWith('b')));
    }
    // Then two async renders started in those 12 s, one at a time
    expect(started).toEqual(['b1', 'b2']);
  });

  it('without the option (or 0), the lanes only share out the slots', () => {
    for (const s of [
      new FairScheduler<string>({ sync: 1, async: 1 }),
      new FairScheduler<string>({ sync: 1, async: 1 }, { asyncYieldMs: 0 }),
    ]) {
      s.submit('sync', 'a', 2, 'a-sync');
      s.submit('async', 'b', 2, 'b-async');
      expect(jobs(s.dispatch(0))).toEqual(['a-sync', 'b-async']);
      expect(s.asyncHeldUntil(0)).toBeUndefined();
    }
    expect(() => new FairScheduler<string>({ sync: 1, async: 1 }, { asyncYieldMs: -1 })).toThrow(RangeError);
    expect(() => new FairScheduler<string>({ sync: 1, async: 1 }, { asyncYieldMs: 1, asyncYieldMaxMs: 0 })).toThrow(RangeError);
  });
});

describe('tenantRenderCap', () => {
  it("is the plan's cap, but leaves at least one page of the worker to the other tenants", () => {
    expect(tenantRenderCap(1, 2)).toBe(1);
    expect(tenantRenderCap(4, 8)).toBe(4);
    expect(tenantRenderCap(4, 2)).toBe(1);
    expect(tenantRenderCap(8, 8)).toBe(7);
    // One page: nothing to leave; the fair turn order is then the only protection
    expect(tenantRenderCap(3, 1)).toBe(1);
    expect(tenantRenderCap(0, 4)).toBe(1);
  });
});

describe('planRenderCap', () => {
  const caps = { standard: 1, high: 3 };
  it("is the plan's setting", () => {
    expect(planRenderCap(caps, 'high')).toBe(3);
    expect(planRenderCap(caps, 'standard')).toBe(1);
  });
  it('gives a plan without a setting, or no plan, the smallest cap', () => {
    expect(planRenderCap(caps, 'enterprise')).toBe(1);
    expect(planRenderCap(caps, undefined)).toBe(1);
    expect(planRenderCap(caps, 'constructor')).toBe(1);
    expect(planRenderCap({}, 'high')).toBe(1);
  });
});
