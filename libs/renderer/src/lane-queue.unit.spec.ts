import { describe, expect, it } from 'vitest';
import { LaneQueue } from './lane-queue.ts';

describe('LaneQueue', () => {
  it('hands out free items at once', async () => {
    const q = new LaneQueue(['a', 'b']);
    expect(await q.take('async')).toBe('a');
    expect(await q.take('sync')).toBe('b');
    expect(q.freeCount).toBe(0);
  });

  it('gives a returned item to the oldest sync waiter before any async one', async () => {
    // Given one item, taken, and waiters arriving async, sync, async, sync
    const q = new LaneQueue(['page']);
    const item = await q.take('async');
    const order: string[] = [];
    const waiters = (['async-1', 'sync-1', 'async-2', 'sync-2'] as const).map((name) =>
      q.take(name.startsWith('sync') ? 'sync' : 'async').then((it) => {
        order.push(name);
        q.give(it);
      }),
    );
    expect(q.waitingCount('sync')).toBe(2);
    expect(q.waitingCount('async')).toBe(2);

    // When the item comes back
    q.give(item);
    await Promise.all(waiters);

    // Then sync waiters went first, each lane first come first served
    expect(order).toEqual(['sync-1', 'sync-2', 'async-1', 'async-2']);
  });

  it('rejects waiters and later takes once closed, and drains free items', async () => {
    const q = new LaneQueue([1]);
    await q.take('sync');
    const waiting = q.take('async');
    q.give(2);
    await expect(waiting).resolves.toBe(2);
    const pending = q.take('sync');
    q.close(new Error('closed'));
    await expect(pending).rejects.toThrow('closed');
    await expect(q.take('async')).rejects.toThrow('closed');
    q.give(3);
    expect(q.drainFree()).toEqual([3]);
  });
});
