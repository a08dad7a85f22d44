import { silentLogger } from '@pressroom/core';
import { describe, expect, it } from 'vitest';
import { PagePool, PoolClosedError, type PageLifecycle } from './page-pool.ts';

interface FakePage {
  id: number;
  alive: boolean;
  resets: number;
}

/** A lifecycle that records what the pool asked of it; `failReset` makes resets reject. */
function fakeLifecycle(opts: { failReset?: boolean } = {}) {
  const opened: FakePage[] = [];
  const disposed: number[] = [];
  const lifecycle: PageLifecycle<FakePage> = {
    open: async () => {
      const page = { id: opened.length + 1, alive: true, resets: 0 };
      opened.push(page);
      return page;
    },
    reset: async (page) => {
      if (opts.failReset) throw new Error('reset failed');
      page.resets++;
    },
    dispose: async (page) => {
      page.alive = false;
      disposed.push(page.id);
    },
    usable: (page) => page.alive,
  };
  return { lifecycle, opened, disposed };
}

const pool = (lifecycle: PageLifecycle<FakePage>, size = 1, recycleAfter = 100) =>
  new PagePool({ size, recycleAfter, lifecycle, logger: silentLogger });

describe('PagePool', () => {
  it('opens every page when warmed and resets a page between jobs', async () => {
    const fake = fakeLifecycle();
    const p = pool(fake.lifecycle, 2);
    await p.warm();
    expect(fake.opened).toHaveLength(2);

    const lease = await p.acquire('async');
    await lease.release();
    expect(lease.page.resets).toBe(1);
    expect(p.stats()).toMatchObject({ size: 2, busy: 0, idle: 2, opened: 2, replaced: 0 });
  });

  it('with a spare page, hands the next job a ready page while the freed one is still being reset, and never more jobs at once than its size', async () => {
    // Given a one-job pool with a spare page, whose resets wait until we let them finish
    const fake = fakeLifecycle();
    const resets: (() => void)[] = [];
    const slowReset: PageLifecycle<FakePage> = {
      ...fake.lifecycle,
      reset: (page) =>
        new Promise<void>((resolve) => {
          resets.push(() => {
            page.resets++;
            resolve();
          });
        }),
    };
    const p = new PagePool({ size: 1, spares: 1, recycleAfter: 100, lifecycle: slowReset, logger: silentLogger });
    await p.warm();
    expect(p.stats()).toMatchObject({ size: 1, spares: 1, idle: 2, opened: 2 });

    // When a job gives its page back (its reset now under way), and two more jobs ask
    const first = await p.acquire('sync');
    void first.release();
    const second = await p.acquire('sync');
    let thirdGot = false;
    const third = p.acquire('sync').then((lease) => {
      thirdGot = true;
      return lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));

    // Then the second job got the other page at once, before the first page's reset ended,
    // and the third waits for its turn (one job at a time), not just for a page
    expect(second.page.id).not.toBe(first.page.id);
    expect(first.page.resets).toBe(0);
    expect(thirdGot).toBe(false);
    expect(p.stats()).toMatchObject({ busy: 1, preparing: 1, waitingSync: 1 });

    // And once the second job ends, the third gets the first page, reset by then
    resets.shift()?.();
    void second.release();
    const lease = await third;
    expect(lease.page.id).toBe(first.page.id);
    expect(lease.page.resets).toBe(1);
  });

  it('replaces a page after recycleAfter jobs', async () => {
    const fake = fakeLifecycle();
    const p = pool(fake.lifecycle, 1, 3);
    await p.warm();
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) {
      const lease = await p.acquire('sync');
      ids.push(lease.page.id);
      await lease.release();
    }
    expect(ids).toEqual([1, 1, 1, 2, 2, 2, 3]);
    expect(fake.disposed).toEqual([1, 2]);
  });

  it('replaces a discarded page instead of resetting it', async () => {
    const fake = fakeLifecycle();
    const p = pool(fake.lifecycle);
    await p.warm();
    const lease = await p.acquire('async');
    await lease.release({ discard: true });
    expect(lease.page.resets).toBe(0);
    expect(fake.disposed).toEqual([1]);
    expect((await p.acquire('async')).page.id).toBe(2);
  });

  it('replaces a page whose reset fails', async () => {
    const fake = fakeLifecycle({ failReset: true });
    const p = pool(fake.lifecycle);
    await p.warm();
    await (await p.acquire('async')).release();
    expect(fake.disposed).toEqual([1]);
    expect((await p.acquire('async')).page.id).toBe(2);
  });

  it('replaces a page that died while idle when it is next taken', async () => {
    const fake = fakeLifecycle();
    const p = pool(fake.lifecycle);
    await p.warm();
    fake.opened[0]!.alive = false;
    expect((await p.acquire('async')).page.id).toBe(2);
  });

  it('counts a double release once', async () => {
    const fake = fakeLifecycle();
    const p = pool(fake.lifecycle, 1, 2);
    await p.warm();
    const lease = await p.acquire('async');
    await Promise.all([lease.release(), lease.release()]);
    expect(p.stats()).toMatchObject({ busy: 0, idle: 1 });
    expect(lease.page.resets).toBe(1);
  });

  it('hands the slot back when opening a page fails, so later jobs can try again', async () => {
    let failures = 1;
    const fake = fakeLifecycle();
    const flaky: PageLifecycle<FakePage> = {
      ...fake.lifecycle,
      open: async () => {
        if (failures-- > 0) throw new Error('browser down');
        return fake.lifecycle.open();
      },
    };
    const p = pool(flaky);
    await expect(p.acquire('async')).rejects.toThrow('browser down');
    expect((await p.acquire('async')).page.id).toBe(1);
  });

  it('rejects waiting and later jobs once closed, and disposes idle and returned pages', async () => {
    const fake = fakeLifecycle();
    const p = pool(fake.lifecycle, 2);
    await p.warm();
    const busy = await p.acquire('async');
    await p.acquire('async');
    const waiting = p.acquire('sync');
    await p.close();
    await expect(waiting).rejects.toBeInstanceOf(PoolClosedError);
    await expect(p.acquire('async')).rejects.toBeInstanceOf(PoolClosedError);
    await busy.release();
    expect(fake.disposed).toContain(busy.page.id);
  });
});
