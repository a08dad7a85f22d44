import { describe, expect, it } from 'vitest';
import { PressroomError } from '@pressroom/domain';
import { createHistoryReads } from './history-reads.ts';

/** A read that ends when told to, and says whether it started. */
function heldRead(value: string) {
  let release!: () => void;
  let fail!: (err: Error) => void;
  const ended = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  const read = {
    started: false,
    fn: async () => {
      read.started = true;
      await ended;
      return value;
    },
    release: () => release(),
    fail: (err: Error) => fail(err),
  };
  return read;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('history reads: a few at a time, a couple per tenant', () => {
  it('runs at most atOnce reads together; the others wait their turn, in arrival order', async () => {
    const reads = createHistoryReads({ atOnce: 2, perTenant: 2 });
    const [a, b, c] = [heldRead('a'), heldRead('b'), heldRead('c')];
    // Given three tenants' reads, with room for two
    const answers = [reads.run('t1', a.fn), reads.run('t2', b.fn), reads.run('t3', c.fn)];
    await settle();
    // Then two run and the third waits
    expect([a.started, b.started, c.started]).toEqual([true, true, false]);
    // When one ends, the waiting one starts
    a.release();
    await settle();
    expect(c.started).toBe(true);
    b.release();
    c.release();
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c']);
  });

  it("refuses a tenant's read past perTenant under way or waiting with 429 HISTORY_BUSY, and not another tenant's", async () => {
    const reads = createHistoryReads({ atOnce: 1, perTenant: 2 });
    const [one, two, other] = [heldRead('1'), heldRead('2'), heldRead('other')];
    // Given a tenant with one read running and one waiting
    const answers = [reads.run('greedy', one.fn), reads.run('greedy', two.fn)];
    await settle();
    // Then its third is refused at once, retryable after a second, and never runs
    const third = heldRead('3');
    const refused = await reads.run('greedy', third.fn).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PressroomError);
    expect(refused).toMatchObject({ code: 'HISTORY_BUSY', retryable: true, retryAfterSeconds: 1 });
    expect(third.started).toBe(false);
    // And another tenant's read is taken: it waits its turn behind the greedy one's
    const others = reads.run('polite', other.fn);
    await settle();
    expect(other.started).toBe(false);
    one.release();
    await settle();
    expect(two.started).toBe(true);
    two.release();
    await settle();
    expect(other.started).toBe(true);
    other.release();
    expect(await Promise.all([...answers, others])).toEqual(['1', '2', 'other']);
    // And once its reads ended, the tenant is taken again
    const again = heldRead('again');
    const answer = reads.run('greedy', again.fn);
    await settle();
    again.release();
    expect(await answer).toBe('again');
  });

  it('frees the slot and the tenant’s count when a read fails', async () => {
    const reads = createHistoryReads({ atOnce: 1, perTenant: 1 });
    const broken = heldRead('broken');
    const failing = reads.run('t1', broken.fn);
    await settle();
    broken.fail(new Error('log unavailable'));
    await expect(failing).rejects.toThrow('log unavailable');
    const next = heldRead('next');
    const answer = reads.run('t1', next.fn);
    await settle();
    expect(next.started).toBe(true);
    next.release();
    expect(await answer).toBe('next');
  });
});
