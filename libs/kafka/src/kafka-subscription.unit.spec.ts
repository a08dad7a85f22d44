import { EventEmitter } from 'node:events';
import type { Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { startSubscription } from './kafka-subscription.ts';

/**
 * A stand-in for a kafkajs consumer: what the subscription calls, and the CRASH event it listens
 * to. Only the subscription's reaction to the client's crash report is under test here (the
 * consuming itself runs against a real broker in kafka-event-log.int.spec.ts).
 */
function fakeConsumer() {
  const events = new EventEmitter();
  const calls: string[] = [];
  let failRuns = 0;
  let eachMessage: ((payload: unknown) => Promise<void>) | undefined;
  const consumer = {
    events: { GROUP_JOIN: 'join', REBALANCING: 'rebalancing', CRASH: 'crash' },
    on: (name: string, listener: (e: { payload: unknown }) => void) => events.on(name, listener),
    connect: async () => void calls.push('connect'),
    subscribe: async () => void calls.push('subscribe'),
    run: async (opts: { eachMessage: (payload: unknown) => Promise<void> }) => {
      calls.push('run');
      eachMessage = opts.eachMessage;
      if (failRuns > 0) {
        failRuns--;
        throw new Error('broker still away');
      }
    },
    disconnect: async () => void calls.push('disconnect'),
    commitOffsets: async () => {},
  };
  const crash = (restart: boolean) => events.emit('crash', { payload: { error: new Error('Failed to find group coordinator'), restart } });
  /** The group gave this member these partitions of topic `t` (kafkajs's GROUP_JOIN). */
  const join = (partitions: number[]) =>
    events.emit('join', { payload: { memberId: 'm', isLeader: true, memberAssignment: { t: partitions } } });
  /** kafkajs hands the member a record of `t`/0 (the call returns once the record is taken or let go). */
  const deliver = (offset: number, key: string) =>
    eachMessage!({
      topic: 't',
      partition: 0,
      message: { offset: String(offset), key: Buffer.from(key), value: Buffer.from('{}'), timestamp: '0' },
      heartbeat: async () => {},
    });
  return { consumer, calls, crash, join, deliver, failNextRuns: (n: number) => (failRuns = n) };
}

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as never;

async function subscribed(fake: ReturnType<typeof fakeConsumer>) {
  const kafka = { consumer: () => fake.consumer } as unknown as Kafka;
  return startSubscription(
    {
      kafka,
      codec: {} as never,
      logger: silent,
      timings: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100, commitIntervalMs: 0 },
    },
    { group: 'g', topics: ['t'], handle: async () => {} },
  );
}

describe('kafka subscription after a crash', () => {
  it('connects and runs the consumer again when kafkajs will not restart it (a crash it deems not retriable)', async () => {
    const fake = fakeConsumer();
    const sub = await subscribed(fake);
    expect(fake.calls).toEqual(['connect', 'subscribe', 'run']);
    fake.crash(false);
    await waitFor(async () => fake.calls.length === 5, { timeoutMs: 5_000, intervalMs: 20, description: 'the consumer to run again' });
    expect(fake.calls.slice(3)).toEqual(['connect', 'run']);
    await sub.stop();
  });

  it('keeps trying while the broker is away, and leaves restartable crashes to kafkajs', async () => {
    const fake = fakeConsumer();
    const sub = await subscribed(fake);
    fake.crash(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.calls).toEqual(['connect', 'subscribe', 'run']);
    fake.failNextRuns(1);
    fake.crash(false);
    await waitFor(async () => fake.calls.filter((c) => c === 'run').length === 3, {
      timeoutMs: 8_000,
      intervalMs: 20,
      description: 'a second try after the failed one',
    });
    expect(fake.calls.slice(3)).toEqual(['connect', 'run', 'disconnect', 'connect', 'run']);
    await sub.stop();
  });

  it('does not start the consumer again once the subscription stops', async () => {
    const fake = fakeConsumer();
    const sub = await subscribed(fake);
    await sub.stop();
    fake.crash(false);
    await new Promise((r) => setTimeout(r, 600));
    expect(fake.calls.filter((c) => c === 'run')).toHaveLength(1);
  });
});

describe('kafka subscription across a lost and regained partition', () => {
  it('lets go of a record that waited through it, so the new assignment runs its key in order and skips nothing', async () => {
    const fake = fakeConsumer();
    const kafka = { consumer: () => fake.consumer } as unknown as Kafka;
    /** Offsets whose handling started, in order; each runs until released (releases[i] ends started[i]). */
    const started: string[] = [];
    const releases: (() => void)[] = [];
    const sub = await startSubscription(
      {
        kafka,
        codec: { decode: async () => ({ type: 'RenderRequested', requestId: 'r' }) } as never,
        logger: silent,
        timings: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 20, maxWaitTimeMs: 100, commitIntervalMs: 0 },
      },
      {
        group: 'g',
        topics: ['t'],
        concurrency: 2,
        handle: (record) =>
          new Promise<void>((resolve) => {
            started.push(record.offset);
            releases.push(resolve);
          }),
      },
    );
    fake.join([0]);
    await fake.deliver(5, 'a'); // taken: its handling runs
    const waiting = fake.deliver(6, 'a'); // waits for its key
    fake.join([]); // the partition goes to another member...
    fake.join([0]); // ...and comes back
    await waiting;
    // The old assignment's 6 let go: it never ran beside 5, which the old assignment still runs.
    expect(started).toEqual(['5']);
    // The new assignment delivers again from the committed position (5, never finished): not skipped.
    await fake.deliver(5, 'a');
    expect(started).toEqual(['5', '5']);
    releases[1]!(); // the new assignment's 5 ends
    const next = fake.deliver(6, 'a'); // after 5 of the new assignment, in key order
    await waitFor(async () => started.length === 3, { timeoutMs: 5_000, intervalMs: 10, description: '6 to start' });
    await next;
    expect(started).toEqual(['5', '5', '6']);
    for (const release of releases) release();
    await sub.stop();
  });
});
