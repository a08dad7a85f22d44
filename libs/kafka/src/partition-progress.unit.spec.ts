import { describe, expect, it } from 'vitest';
import { PartitionProgress } from './partition-progress.ts';

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
