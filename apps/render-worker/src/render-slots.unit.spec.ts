import { afterEach, describe, expect, it, vi } from 'vitest';
import { RenderSlots, SlotsClosedError } from './render-slots.ts';

const settled = () => new Promise((r) => setImmediate(r));

describe('RenderSlots', () => {
  it("starts another tenant's render while a capped tenant's next one waits, and that one once a slot frees", async () => {
    // Given two slots per lane and a tenant with cap 1 holding one
    const slots = new RenderSlots(2);
    const started: string[] = [];
    const take = (tenant: string, name: string) =>
      slots.acquire('sync', tenant, 1).then((release) => {
        started.push(name);
        return release;
      });
    const a1 = take('a', 'a1');
    void take('a', 'a2');
    void take('b', 'b1');
    await settled();
    // Then b1 started past a2
    expect(started).toEqual(['a1', 'b1']);
    expect(slots.stats('sync')).toEqual({ running: 2, waiting: 1 });
    // When a1 is given back (twice: the second is ignored), a2 starts
    const release = await a1;
    release();
    release();
    await settled();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    expect(slots.stats('sync')).toEqual({ running: 2, waiting: 0 });
  });

  it('gives a slot at once only when one is free, the tenant under its cap and nobody waiting in the lane', async () => {
    // Given two sync slots and a tenant with cap 1
    const slots = new RenderSlots(2);
    const a = slots.tryAcquire('sync', 'a', 1);
    expect(a).toBeTypeOf('function');
    // Then a second one for the same tenant is refused (its cap), and leaves nothing waiting
    expect(slots.tryAcquire('sync', 'a', 1)).toBeUndefined();
    expect(slots.stats('sync')).toEqual({ running: 1, waiting: 0 });
    // When a render of tenant a waits for a slot (its cap), no other tenant may jump ahead of it either
    const queued = slots.acquire('sync', 'a', 1);
    expect(slots.tryAcquire('sync', 'b', 1)).toBeUndefined();
    // When tenant a's first render ends, the queued one starts; then b takes the other free slot
    a?.();
    const release = await queued;
    const b = slots.tryAcquire('sync', 'b', 1);
    expect(b).toBeTypeOf('function');
    expect(slots.stats('sync')).toEqual({ running: 2, waiting: 0 });
    // And with both slots taken, nothing more, even for a new tenant
    expect(slots.tryAcquire('sync', 'c', 1)).toBeUndefined();
    release();
    b?.();
    expect(slots.stats('sync')).toEqual({ running: 0, waiting: 0 });
    slots.close();
    expect(slots.tryAcquire('sync', 'c', 1)).toBeUndefined();
  });

  it('turns away what waits, and every later ask, once closed', async () => {
    const slots = new RenderSlots(1);
    await slots.acquire('async', 'a', 1);
    const waiting = slots.acquire('async', 'b', 1);
    slots.close();
    await expect(waiting).rejects.toBeInstanceOf(SlotsClosedError);
    await expect(slots.acquire('sync', 'c', 1)).rejects.toBeInstanceOf(SlotsClosedError);
    expect(slots.stats('async')).toEqual({ running: 1, waiting: 0 });
  });

  describe('with an async yield', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('starts a waiting async render once the window after the last sync render has passed, by itself', async () => {
      vi.useFakeTimers();
      let now = 0;
      const slots = new RenderSlots(2, { asyncYieldMs: 200, now: () => now });
      const started: string[] = [];
      // Given a sync render running and an async one waiting
      const sync = slots.acquire('sync', 'a', 2);
      await vi.advanceTimersByTimeAsync(0);
      void slots.acquire('async', 'b', 2).then(() => started.push('b-async'));
      await vi.advanceTimersByTimeAsync(0);
      expect(slots.stats('async')).toEqual({ running: 0, waiting: 1 });
      // When the sync render ends at t=1000
      now = 1000;
      (await sync)();
      // Then the async one waits out the window, and starts with no other event
      now = 1199;
      await vi.advanceTimersByTimeAsync(199);
      expect(started).toEqual([]);
      now = 1200;
      await vi.advanceTimersByTimeAsync(1);
      expect(started).toEqual(['b-async']);
      expect(slots.stats('async')).toEqual({ running: 1, waiting: 0 });
    });

    it('a close cancels the wake-up', async () => {
      vi.useFakeTimers();
      const slots = new RenderSlots(1, { asyncYieldMs: 200, now: () => 0 });
      (await slots.acquire('sync', 'a', 1))();
      const waiting = slots.acquire('async', 'b', 1);
      slots.close();
      await expect(waiting).rejects.toBeInstanceOf(SlotsClosedError);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
