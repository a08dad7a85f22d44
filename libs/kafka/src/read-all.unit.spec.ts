import { describe, expect, it } from 'vitest';
import { ReadAllProgress } from './read-all.ts';

describe('ReadAllProgress: when a read of every record the topics held is complete', () => {
  const marks = new Map([
    ['a\u00000', 10n],
    ['a\u00001', 5n],
  ]);

  it('is complete once every partition was taken through its mark − 1', () => {
    const p = new ReadAllProgress(marks);
    expect(p.batchTaken('a\u00000', 4n)).toBe(false);
    expect(p.batchTaken('a\u00001', 4n)).toBe(false);
    expect(p.batchTaken('a\u00000', 9n)).toBe(true);
  });

  it('a batch stopped at the mark counts (its last offset lies past it)', () => {
    const p = new ReadAllProgress(new Map([['a\u00000', 10n]]));
    expect(p.batchTaken('a\u00000', 14n)).toBe(true);
  });

  it('never counts the reported end of a batch with records: kafkajs reports it even when eachBatch left it early', () => {
    // Given a batch of offsets 0-9 that eachBatch left after offset 3 (its runner stopping for a restart)
    const p = new ReadAllProgress(marks);
    p.batchTaken('a\u00001', 4n);
    // When kafkajs reports that batch's end with its last offset
    // Then the partition is not read: its records 4-9 were never visited
    expect(p.batchEnded('a\u00000', 10, 9n)).toBe(false);
    expect(p.complete).toBe(false);
  });

  it('counts the end of a batch kafkajs filtered out entirely (control records, never given to eachBatch)', () => {
    const p = new ReadAllProgress(new Map([['a\u00000', 10n]]));
    expect(p.batchTaken('a\u00000', 7n)).toBe(false);
    expect(p.batchEnded('a\u00000', 0, 9n)).toBe(true);
  });

  it('ignores partitions it has no mark for', () => {
    const p = new ReadAllProgress(new Map([['a\u00000', 10n]]));
    expect(p.batchTaken('b\u00000', 100n)).toBe(false);
    expect(p.batchEnded('b\u00000', 0, 100n)).toBe(false);
  });
});
