import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemberProgress, PartitionProgress, type PositionToCommit } from './partition-progress.ts';
import { IGNORED } from '@pressroom/core';

describe('PartitionProgress', () => {
  it('commits up to the lowest unfinished record while later ones finish first', () => {
    const p = new PartitionProgress();
    expect(p.toCommit()).toBeUndefined();
    p.take(10n, 'a');
    p.take(11n, 'b');
    p.take(12n, 'c');
    // When 11 and 12 finish while 10 still runs
    p.finish(12n, 'c');
    p.finish(11n, 'b');
    // Then the position stays at 10: a crash now renders 10 (and 11, 12) again, never loses 10
    expect(p.toCommit()).toBe(10n);
    p.committed(10n);
    expect(p.toCommit()).toBeUndefined();
    // And once 10 finishes, it moves past all three
    p.finish(10n, 'a');
    expect(p.toCommit()).toBe(13n);
  });

  it('keeps the position at a record whose handler gave up', () => {
    const p = new PartitionProgress();
    p.take(5n, 'a');
    p.take(6n, 'b');
    p.release('a');
    p.finish(6n, 'b');
    expect(p.toCommit()).toBe(5n);
    expect(p.keyBusy('a')).toBe(false);
  });

  it('follows offsets with gaps (compaction, transaction markers)', () => {
    const p = new PartitionProgress();
    p.take(3n, 'a');
    p.take(9n, 'b');
    p.finish(3n, 'a');
    expect(p.toCommit()).toBe(9n);
    p.finish(9n, 'b');
    expect(p.toCommit()).toBe(10n);
  });

  it('recognises a redelivery of a record it took, and keeps keys one at a time', () => {
    const p = new PartitionProgress();
    p.take(7n, 'k');
    expect(p.seen(7n)).toBe(true);
    expect(p.seen(8n)).toBe(false);
    expect(() => p.take(7n, 'k')).toThrow(/taken already/);
    expect(p.keyBusy('k')).toBe(true);
    p.finish(7n, 'k');
    expect(p.keyBusy('k')).toBe(false);
  });

  it('handles offsets above 2^53', () => {
    const p = new PartitionProgress();
    const big = 2n ** 60n;
    p.take(big, 'a');
    p.finish(big, 'a');
    expect(p.toCommit()).toBe(big + 1n);
  });
});

describe('MemberProgress', () => {
  /** A member whose commits are held until the test lets them go (`calls[i].resolve()`). */
  function member(owned = new Set(['t:0', 't:1'])) {
    const calls: { positions: PositionToCommit[]; resolve: () => void; reject: (e: Error) => void }[] = [];
    const warnings: string[] = [];
    const progress = new MemberProgress({
      owned: () => owned,
      commit: (positions) => new Promise<void>((resolve, reject) => calls.push({ positions, resolve, reject })),
      logger: { warn: (message: string) => void warnings.push(message) },
    });
    return { progress, calls, warnings, owned };
  }
  const done = (progress: MemberProgress, partition: number, offset: bigint) => {
    const p = progress.of('t', partition);
    p.take(offset, `k${offset}`);
    p.finish(offset, `k${offset}`);
  };

  it('coalesces commits: one runs at a time, and the next carries every position moved meanwhile', async () => {
    const { progress, calls } = member();
    done(progress, 0, 1n);
    const first = progress.commit();
    expect(calls.map((c) => c.positions)).toEqual([[{ topic: 't', partition: 0, position: 2n }]]);
    // While it runs, two partitions move and two more commits are asked for
    done(progress, 0, 2n);
    done(progress, 1, 7n);
    const second = progress.commit();
    const third = progress.commit();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]!.positions).toEqual([
      { topic: 't', partition: 0, position: 3n },
      { topic: 't', partition: 1, position: 8n },
    ]);
    calls[1]!.resolve();
    await Promise.all([first, second, third]);
    // Nothing moved since: nothing to commit
    await progress.commit();
    expect(calls).toHaveLength(2);
  });

  it('commits only partitions still owned, and forgets the ones lost at a rejoin', async () => {
    const { progress, calls, owned } = member();
    done(progress, 0, 1n);
    done(progress, 1, 1n);
    owned.delete('t:1');
    const committed = progress.commit();
    expect(calls[0]!.positions).toEqual([{ topic: 't', partition: 0, position: 2n }]);
    calls[0]!.resolve();
    await committed;
    progress.keepOnly(owned);
    owned.add('t:1');
    // The partition came back: its old progress is gone, so it starts afresh
    expect(progress.of('t', 1).seen(1n)).toBe(false);
  });

  it('logs a failed commit and commits the same position with the next one', async () => {
    const { progress, calls, warnings } = member();
    done(progress, 0, 4n);
    const failing = progress.commit();
    calls[0]!.reject(new Error('broker away'));
    await failing;
    expect(warnings).toEqual(['kafka: could not commit positions']);
    const again = progress.commit();
    expect(calls[1]!.positions).toEqual([{ topic: 't', partition: 0, position: 5n }]);
    calls[1]!.resolve();
    await again;
  });

  it('stopping: a running commit does not repeat; stop commits what moved after it, then closes', async () => {
    const { progress, calls } = member();
    done(progress, 0, 1n);
    void progress.commit();
    done(progress, 0, 2n);
    void progress.commit();
    let closed = false;
    const stopped = progress.stop(async () => void (closed = true));
    expect(progress.signal.aborted).toBe(true);
    calls[0]!.resolve();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]!.positions).toEqual([{ topic: 't', partition: 0, position: 3n }]);
    calls[1]!.resolve();
    await stopped;
    expect(calls).toHaveLength(2);
    expect(closed).toBe(true);
    expect(progress.stop(async () => void (closed = false))).toBe(stopped);
  });
});

describe('MemberProgress: records being handled', () => {
  it('counts them, wakes waiters at stop, and stops after every one ended, with the last positions', async () => {
    const commits: PositionToCommit[][] = [];
    const progress = new MemberProgress({
      owned: () => new Set(['t:0']),
      commit: async (positions) => void commits.push(positions),
      logger: { warn: () => {} },
    });
    const p = progress.of('t', 0);
    let finish = () => {};
    p.take(0n, 'a');
    const woken = progress.changed;
    progress.handle(new Promise<void>((resolve) => (finish = resolve)).then(() => p.finish(0n, 'a')));
    expect(progress.handling).toBe(1);
    const stopped = progress.stop(async () => {});
    await woken; // stopping wakes a waiter too
    finish();
    await stopped;
    expect(progress.handling).toBe(0);
    expect(commits.at(-1)).toEqual([{ topic: 't', partition: 0, position: 1n }]);
  });
});

/**
 * A member owning partition t:0 (commitIntervalMs as given), its commits, and `handled(offset,
 * outcome)`: a record taken, then ended in a microtask with the handler's outcome.
 */
function memberOnT0(opts: { commitIntervalMs?: number }) {
  const commits: PositionToCommit[][] = [];
  const progress = new MemberProgress({
    owned: () => new Set(['t:0']),
    commit: async (positions) => void commits.push(positions),
    ...opts,
    logger: { warn: () => {} },
  });
  const p = progress.of('t', 0);
  const handled = (offset: bigint, outcome?: typeof IGNORED) => {
    p.take(offset, `k${offset}`);
    progress.handle(
      Promise.resolve().then(() => {
        p.finish(offset, `k${offset}`);
        return outcome;
      }),
    );
  };
  const at = (position: bigint) => [{ topic: 't', partition: 0, position }];
  return { progress, commits, handled, at };
}

describe('MemberProgress: commits at most once per interval', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const member = () => memberOnT0({ commitIntervalMs: 1_000 });

  it('commits the first record at once, then the records of the next second in one commit at its end', async () => {
    const { commits, handled } = member();

    // When one record ends, then three more within the next second
    handled(0n);
    await vi.advanceTimersByTimeAsync(0);
    expect(commits).toEqual([[{ topic: 't', partition: 0, position: 1n }]]);
    for (const offset of [1n, 2n, 3n]) {
      handled(offset);
      await vi.advanceTimersByTimeAsync(100);
    }

    // Then nothing more is committed before the second is over, and one commit carries all three
    expect(commits).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(700);
    expect(commits).toEqual([[{ topic: 't', partition: 0, position: 1n }], [{ topic: 't', partition: 0, position: 4n }]]);
  });

  it('stopping commits what is due at once, without waiting for the interval', async () => {
    const { progress, commits, handled } = member();
    handled(0n);
    await vi.advanceTimersByTimeAsync(0);
    handled(1n);
    await vi.advanceTimersByTimeAsync(10);
    expect(commits).toHaveLength(1);

    await progress.stop(async () => {});

    expect(commits).toEqual([[{ topic: 't', partition: 0, position: 1n }], [{ topic: 't', partition: 0, position: 2n }]]);
    // and the timer the interval had set commits nothing more
    await vi.advanceTimersByTimeAsync(2_000);
    expect(commits).toHaveLength(2);
  });
});

describe('MemberProgress: ignored records commit lazily', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The default settings: a commit as each record ends. */
  const member = () => memberOnT0({});

  it('a record handled commits at once; ignored records after it wait, up to a second', async () => {
    const { commits, handled, at } = member();
    handled(0n, undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(commits).toEqual([at(1n)]);

    // Three records the handler ignored, within the next half second: no commit of their own
    for (const offset of [1n, 2n, 3n]) {
      handled(offset, IGNORED);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(commits).toEqual([at(1n)]);

    // A second after the last commit, one commit carries them
    await vi.advanceTimersByTimeAsync(800);
    expect(commits).toEqual([at(1n), at(4n)]);
  });

  it('a record handled after ignored ones commits at once, carrying their positions; the timer then commits nothing', async () => {
    const { commits, handled, at } = member();
    handled(0n, undefined);
    await vi.advanceTimersByTimeAsync(0);
    handled(1n, IGNORED);
    handled(2n, IGNORED);
    await vi.advanceTimersByTimeAsync(50);
    expect(commits).toEqual([at(1n)]);

    handled(3n, undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(commits).toEqual([at(1n), at(4n)]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(commits).toHaveLength(2);
  });

  it('stopping commits the ignored records at once', async () => {
    const { progress, commits, handled, at } = member();
    handled(0n, undefined);
    await vi.advanceTimersByTimeAsync(0);
    handled(1n, IGNORED);
    await vi.advanceTimersByTimeAsync(10);

    await progress.stop(async () => {});

    expect(commits).toEqual([at(1n), at(2n)]);
  });
});
