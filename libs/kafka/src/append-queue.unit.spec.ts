import { describe, expect, it } from 'vitest';
import { appendNeverSent } from '@pressroom/domain';
import { AppendQueue, type PartitionBase } from './append-queue.ts';

/** A send the test resolves or rejects by hand (the broker's answer). */
function heldSends() {
  const sends: { topics: string[]; resolve(): void; reject(e: unknown): void }[] = [];
  const send = (_topics: string[], wire: () => { topic: string; messages: { partition?: number }[] }[]) => {
    const batch = wire();
    for (const b of batch) for (const m of b.messages) m.partition = 0;
    return new Promise<PartitionBase[]>((resolve, reject) =>
      sends.push({
        topics: batch.map((b) => b.topic),
        resolve: () => resolve(batch.map((b) => ({ topic: b.topic, partition: 0, baseOffset: '7' }))),
        reject,
      }),
    );
  };
  return { sends, send };
}
const settled = (p: Promise<unknown>) =>
  p.then(
    () => 'ok' as const,
    (e: unknown) => e,
  );

describe('AppendQueue: what an expired append may still do', () => {
  it('an append that expires while queued behind a stuck send is never sent, and says so', async () => {
    const { sends, send } = heldSends();
    const queue = new AppendQueue({ send, timeoutMs: 50 });
    const inFlight = settled(queue.append('a', [{ value: Buffer.from('1') }]));
    const queued = settled(queue.append('b', [{ value: Buffer.from('2') }]));
    const [first, second] = await Promise.all([inFlight, queued]);
    expect(appendNeverSent(first)).toBe(false); // in flight: maybe written
    expect(appendNeverSent(second)).toBe(true);
    sends[0]!.resolve(); // the stuck send lands after all
    await new Promise((r) => setTimeout(r, 10));
    expect(sends.map((s) => s.topics)).toEqual([['a']]); // the expired queued append was dropped
  });

  it('a send that fails is "maybe written"; appends after close are never sent', async () => {
    const { sends, send } = heldSends();
    const queue = new AppendQueue({ send, timeoutMs: 5_000 });
    const failing = settled(queue.append('a', [{ value: Buffer.from('1') }]));
    await new Promise((r) => setTimeout(r, 5));
    sends[0]!.reject(new Error('broker gone'));
    expect(appendNeverSent(await failing)).toBe(false);
    queue.close();
    expect(appendNeverSent(await settled(queue.append('a', [{ value: Buffer.from('2') }])))).toBe(true);
  });

  it('resolves an acknowledged append with its positions; an append that expires before the hand-over is never sent', async () => {
    let ready!: () => void;
    const connected = new Promise<void>((r) => (ready = r));
    const sent: string[][] = [];
    const queue = new AppendQueue({
      timeoutMs: 50,
      async send(_topics, wire) {
        await connected; // connecting longer than the append's deadline
        const batch = wire();
        sent.push(batch.map((b) => b.topic));
        for (const b of batch) for (const m of b.messages) m.partition = 2;
        return batch.map((b) => ({ topic: b.topic, partition: 2, baseOffset: '40' }));
      },
    });
    const expired = settled(queue.append('a', [{ value: Buffer.from('1') }]));
    expect(appendNeverSent(await expired)).toBe(true);
    ready();
    expect(await queue.append('b', [{ value: Buffer.from('2') }, { value: Buffer.from('3') }])).toEqual([
      { partition: 2, offset: '40' },
      { partition: 2, offset: '41' },
    ]);
    expect(sent).toEqual([[], ['b']]);
  });
});
