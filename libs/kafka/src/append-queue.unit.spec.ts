import { describe, expect, it } from 'vitest';
import { appendNeverSent } from '@pressroom/domain';
import { AppendQueue } from './append-queue.ts';

/** A send the test resolves or rejects by hand (the broker's answer). */
function heldSends() {
  const sends: { topics: string[]; resolve(): void; reject(e: unknown): void }[] = [];
  const send = (batch: { topic: string }[]) =>
    new Promise<void>((resolve, reject) => sends.push({ topics: batch.map((b) => b.topic), resolve, reject }));
  return { sends, send };
}
const settled = (p: Promise<void>) =>
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
});
