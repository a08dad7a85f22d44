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
  const consumer = {
    events: { GROUP_JOIN: 'join', REBALANCING: 'rebalancing', CRASH: 'crash' },
    on: (name: string, listener: (e: { payload: unknown }) => void) => events.on(name, listener),
    connect: async () => void calls.push('connect'),
    subscribe: async () => void calls.push('subscribe'),
    run: async () => {
      calls.push('run');
      if (failRuns > 0) {
        failRuns--;
        throw new Error('broker still away');
      }
    },
    disconnect: async () => void calls.push('disconnect'),
    commitOffsets: async () => {},
  };
  const crash = (restart: boolean) => events.emit('crash', { payload: { error: new Error('Failed to find group coordinator'), restart } });
  return { consumer, calls, crash, failNextRuns: (n: number) => (failRuns = n) };
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
