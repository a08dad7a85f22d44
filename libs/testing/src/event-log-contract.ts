import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { eventKey, type EventLog, type LogRecord, type Subscription } from '@pressroom/core';
import type { LogEvent, WebhookDelivered } from '@pressroom/schemas';
import { sequencedEvent } from './sequenced-event.ts';
import { waitFor } from './wait.ts';

/**
 * One instance of the log under test. `makeLog` may be called several times in one test:
 * every instance sees the same storage (a new process over the same directory or cluster).
 */
export interface EventLogUnderTest {
  log: EventLog;
  /**
   * The name for a test's suffix, the same on every instance. Names topics and, with a
   * `group.` suffix, consumer groups, so an adapter's test can keep (and remove) its own.
   */
  topics(suffix: string): string;
  /** Closes this instance. */
  cleanup(): Promise<void>;
  /**
   * Makes the adapter forget the stream versions it keeps beside the log (e.g. a Redis guard
   * losing its data), so it must take them from the log again. Absent where the log itself
   * is the only place versions live.
   */
  forgetStreamVersions?(): Promise<void>;
}

export interface EventLogContractOptions {
  /** Deadline of each wait for deliveries. Default 30 s. */
  waitMs?: number;
}

const tenantId = 'tenant-contract';
const short = () => randomUUID().slice(0, 8);

/** A small valid event; `seq` rides in `durationMs` so tests can check order. */
const event = (requestId: string, seq: number): WebhookDelivered => sequencedEvent(seq, requestId, tenantId);

export const seqOf = (e: LogEvent): number => (e as WebhookDelivered).data.durationMs;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The behaviour every EventLog adapter must show (see the port's JSDoc). */
export function eventLogContract(name: string, makeLog: () => Promise<EventLogUnderTest>, options: EventLogContractOptions = {}): void {
  const waitMs = options.waitMs ?? 30_000;

  describe(`EventLog contract: ${name}`, () => {
    let opened: EventLogUnderTest[] = [];
    let subscriptions: Subscription[] = [];
    const open = async () => {
      const instance = await makeLog();
      opened.push(instance);
      return instance;
    };
    const consume = async (log: EventLog, opts: Parameters<EventLog['consume']>[0]) => {
      const sub = await log.consume(opts);
      subscriptions.push(sub);
      return sub;
    };
    afterEach(async () => {
      await Promise.allSettled(subscriptions.map((s) => s.stop()));
      await Promise.allSettled(opened.map((o) => o.cleanup()));
      subscriptions = [];
      opened = [];
    });

    it('tells when it wrote each record (writtenAt), to consumers and to readAll, by its own clock', async () => {
      // The render worker compares it with a request's acceptBy: it must be the write, not a producer's claim.
      const t = await open();
      const topic = t.topics(`written-${short()}`);
      const before = Date.now();
      await t.log.append(topic, [event(randomUUID(), 0)]);
      const after = Date.now();
      const seen: LogRecord[] = [];
      await consume(t.log, { group: t.topics(`group.written-${short()}`), topics: [topic], handle: async (r) => void seen.push(r) });
      await waitFor(() => seen.length === 1, { timeoutMs: waitMs, description: 'the record' });
      const read: LogRecord[] = [];
      await t.log.readAll([topic], (r) => void read.push(r));
      for (const r of [seen[0], read[0]]) {
        // Same machine, so the clocks agree to the millisecond (a broker rounds to it).
        expect(r?.writtenAt).toBeGreaterThanOrEqual(before - 1);
        expect(r?.writtenAt).toBeLessThanOrEqual(after + 1);
      }
    });

    it('delivers appended events to a consumer in append order per key', async () => {
      // Given two appends, each interleaving three keys
      const t = await open();
      const topic = t.topics(`order-${short()}`);
      const keys = [randomUUID(), randomUUID(), randomUUID()];
      await t.log.append(
        topic,
        [0, 1].flatMap((seq) => keys.map((k) => event(k, seq))),
      );
      await t.log.append(
        topic,
        [2, 3].flatMap((seq) => keys.map((k) => event(k, seq))),
      );
      // When a consumer with concurrency 3 handles them, with uneven handler times
      const started: LogRecord[] = [];
      const done = new Map<string, number[]>(keys.map((k) => [k, []]));
      await consume(t.log, {
        group: t.topics(`group.order-${short()}`),
        topics: [topic],
        concurrency: 3,
        handle: async (record) => {
          started.push(record);
          await pause(Math.random() * 5);
          done.get(record.key)?.push(seqOf(record.event));
        },
      });
      await waitFor(() => [...done.values()].every((s) => s.length === 4), { timeoutMs: waitMs, description: '12 deliveries' });
      // Then each key's events were handled in append order, and records describe themselves
      for (const k of keys) expect(done.get(k)).toEqual([0, 1, 2, 3]);
      for (const r of started) {
        expect(r).toMatchObject({ topic, key: eventKey(r.event) });
        expect(r.offset).toMatch(/^\d+$/);
        expect(Number.isInteger(r.partition) && r.partition >= 0).toBe(true);
      }
      for (const partition of new Set(started.map((r) => r.partition))) {
        const offsets = started.filter((r) => r.partition === partition).map((r) => BigInt(r.offset));
        expect(offsets).toEqual([...offsets].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      }
    });

    it('keeps appended events durably: a new instance over the same storage reads them', async () => {
      const first = await open();
      const suffix = `durable-${short()}`;
      const events = [event(randomUUID(), 0), event(randomUUID(), 1), event(randomUUID(), 2)];
      await first.log.append(first.topics(suffix), events);
      await first.cleanup();
      // When another instance reads the topic
      const second = await open();
      const seen: LogEvent[] = [];
      const count = await second.log.readAll([second.topics(suffix)], (r) => void seen.push(r.event));
      // Then every event is there, intact
      expect(count).toBe(3);
      expect(seen.sort((a, b) => seqOf(a) - seqOf(b))).toEqual(events);
    });

    it('splits the work between members of one group, each record handled once', async () => {
      const t = await open();
      const topic = t.topics(`split-${short()}`);
      const group = t.topics(`group.split-${short()}`);
      const handledBy: Record<'a' | 'b', string[]> = { a: [], b: [] };
      const member = (m: 'a' | 'b') =>
        consume(t.log, {
          group,
          topics: [topic],
          handle: async (r) => {
            handledBy[m].push(r.event.eventId);
            await pause(5);
          },
        });
      await member('a');
      await member('b');
      // When 24 events with distinct keys are appended
      const events = Array.from({ length: 24 }, (_, i) => event(randomUUID(), i));
      await t.log.append(topic, events);
      // Then both members took some, and together handled each exactly once
      const all = () => [...handledBy.a, ...handledBy.b];
      await waitFor(() => new Set(all()).size === 24, { timeoutMs: waitMs, description: 'all 24 handled' });
      expect(all().length).toBe(24);
      expect(new Set(all())).toEqual(new Set(events.map((e) => e.eventId)));
      expect(handledBy.a.length).toBeGreaterThan(0);
      expect(handledBy.b.length).toBeGreaterThan(0);
    });

    it('answers an append with where it wrote each event, and reads one partition in a range of positions', async () => {
      // The ingress withdraws a request it gave up on and reads, up to the withdrawal's position, what came first.
      const t = await open();
      const topic = t.topics(`positions-${short()}`);
      const key = randomUUID();
      await t.log.append(topic, [event(randomUUID(), 0)]); // creates the topic
      // Given the ends of the topic's partitions, taken before the appends
      const floor = new Map((await t.log.endOffsets(topic)).map((e) => [e.partition, e.end]));
      // When three events of one key are appended in two appends, with others between
      const [first, second] = await t.log.append(topic, [event(key, 1), event(key, 2)]);
      await t.log.append(topic, [event(randomUUID(), 9), event(randomUUID(), 9)]);
      const [third] = await t.log.append(topic, [event(key, 3)]);
      // Then each has a position in the key's partition, in append order
      expect(new Set([first!.partition, second!.partition, third!.partition]).size).toBe(1);
      expect(BigInt(second!.offset)).toBe(BigInt(first!.offset) + 1n);
      expect(BigInt(third!.offset)).toBeGreaterThan(BigInt(second!.offset));
      expect(BigInt(first!.offset)).toBeGreaterThanOrEqual(BigInt(floor.get(first!.partition) ?? '0'));
      // ... and reading the partition from the floor through the second position gives the key's first two, in order
      const read: LogRecord[] = [];
      const range = { partition: first!.partition, from: floor.get(first!.partition) ?? '0', through: second!.offset };
      await t.log.readPartition(topic, range, (r) => void read.push(r));
      expect(read.filter((r) => r.key === key).map((r) => seqOf(r.event))).toEqual([1, 2]);
      expect(read.at(-1)?.offset).toBe(second!.offset);
      expect(read.every((r) => r.partition === first!.partition)).toBe(true);
    });

    it('delivers a record again when its handler rejects, and keeps the order of its key', async () => {
      const t = await open();
      const topic = t.topics(`reject-${short()}`);
      const key = randomUUID();
      await t.log.append(topic, [event(key, 0), event(key, 1), event(key, 2)]);
      // When the handler rejects the second record twice
      let rejections = 0;
      const handled: number[] = [];
      await consume(t.log, {
        group: t.topics(`group.reject-${short()}`),
        topics: [topic],
        handle: async (r) => {
          if (seqOf(r.event) === 1 && rejections < 2) {
            rejections += 1;
            throw new Error('simulated handler crash');
          }
          handled.push(seqOf(r.event));
        },
      });
      // Then it is handled on the third delivery, before the record after it
      await waitFor(() => handled.length === 3, { timeoutMs: waitMs, description: 'three records handled' });
      expect(rejections).toBe(2);
      expect(handled).toEqual([0, 1, 2]);
    });

    it('after stop and restart, redelivers uncommitted records and not committed ones', async () => {
      const first = await open();
      const suffix = `restart-${short()}`;
      const group = first.topics(`group.restart-${short()}`);
      const key = randomUUID();
      await first.log.append(
        first.topics(suffix),
        [0, 1, 2, 3].map((seq) => event(key, seq)),
      );
      // Given a consumer that handles 0 and 1, then keeps failing on 2
      const handledBefore: number[] = [];
      let failures = 0;
      const sub = await consume(first.log, {
        group,
        topics: [first.topics(suffix)],
        handle: async (r) => {
          if (seqOf(r.event) === 2) {
            failures += 1;
            throw new Error('simulated crash');
          }
          handledBefore.push(seqOf(r.event));
        },
      });
      await waitFor(() => handledBefore.length === 2 && failures > 0, { timeoutMs: waitMs, description: '0, 1 handled, 2 failing' });
      // When it stops and the group restarts on a new instance
      await sub.stop();
      await first.cleanup();
      const second = await open();
      const handledAfter: number[] = [];
      await consume(second.log, {
        group,
        topics: [second.topics(suffix)],
        handle: async (r) => void handledAfter.push(seqOf(r.event)),
      });
      // Then 2 and 3 arrive, and 0 and 1 do not come again
      await waitFor(() => handledAfter.length >= 2, { timeoutMs: waitMs, description: 'records 2 and 3 after restart' });
      expect(handledBefore).toEqual([0, 1]);
      expect(handledAfter).toEqual([2, 3]);
    });

    it('a gathering consumer (gatherMs) still handles every record in order, and commits them', async () => {
      const first = await open();
      const suffix = `gather-${short()}`;
      const group = first.topics(`group.gather-${short()}`);
      const key = randomUUID();
      // Given a consumer whose reads may wait to gather records, far fewer bytes than it waits for
      const handled: number[] = [];
      const sub = await consume(first.log, {
        group,
        topics: [first.topics(suffix)],
        gatherMs: 200,
        handle: async (r) => void handled.push(seqOf(r.event)),
      });
      // When records come one by one, a moment apart
      for (const seq of [0, 1, 2, 3, 4]) {
        await first.log.append(first.topics(suffix), [event(key, seq)]);
        await pause(30);
      }
      // Then each is handled, in order, once (the wait ends a read, whatever it gathered)
      await waitFor(() => handled.length >= 5, { timeoutMs: waitMs, description: 'five gathered records' });
      expect(handled).toEqual([0, 1, 2, 3, 4]);
      // ... and they were committed: the group's next member gets only what came after
      await sub.stop();
      await first.log.append(first.topics(suffix), [event(key, 5)]);
      await first.cleanup();
      const second = await open();
      const after: number[] = [];
      await consume(second.log, { group, topics: [second.topics(suffix)], handle: async (r) => void after.push(seqOf(r.event)) });
      await waitFor(() => after.length >= 1, { timeoutMs: waitMs, description: 'the record after the stop' });
      await pause(300);
      expect(after).toEqual([5]);
    });

    it('handles records past a slow one (out of order), and commits only up to the lowest unfinished', async () => {
      const first = await open();
      const suffix = `ahead-${short()}`;
      const group = first.topics(`group.ahead-${short()}`);
      // Given 24 records of distinct keys (on every partition, some behind record 0 on its own)
      const events = Array.from({ length: 24 }, (_, seq) => event(randomUUID(), seq));
      await first.log.append(first.topics(suffix), events);
      // When record 0's handler hangs, with concurrency 8
      let releaseSlow!: (outcome: Error | undefined) => void;
      const slow = new Promise<Error | undefined>((resolve) => (releaseSlow = resolve));
      const handledBefore = new Map<number, LogRecord>();
      let slowRecord: LogRecord | undefined;
      const sub = await consume(first.log, {
        group,
        topics: [first.topics(suffix)],
        concurrency: 8,
        handle: async (r) => {
          if (seqOf(r.event) === 0) {
            slowRecord = r;
            const failure = await slow;
            if (failure) throw failure;
          }
          handledBefore.set(seqOf(r.event), r);
        },
      });
      // Then every other record is handled while 0 still runs
      await waitFor(() => handledBefore.size === 23, { timeoutMs: waitMs, description: '23 records past the slow one' }).catch(
        (e: Error) => {
          releaseSlow(undefined); // lets the cleanup stop the member
          throw e;
        },
      );
      expect(handledBefore.has(0)).toBe(false);
      // When the member stops with record 0 unfinished (its handler gives up), and the group restarts
      const stopping = sub.stop();
      releaseSlow(new Error('gave up at stop'));
      await stopping;
      await first.cleanup();
      const second = await open();
      const handledAfter: LogRecord[] = [];
      await consume(second.log, {
        group,
        topics: [second.topics(suffix)],
        concurrency: 8,
        handle: async (r) => void handledAfter.push(r),
      });
      // Then record 0 comes again: the finished records after it did not commit past it
      await waitFor(() => handledAfter.some((r) => seqOf(r.event) === 0), { timeoutMs: waitMs, description: 'record 0 again' });
      await pause(500);
      // And nothing else comes again but records behind it on its partition (at-least-once, never at-most-once)
      const slowAt = slowRecord as LogRecord;
      for (const r of handledAfter) {
        if (seqOf(r.event) === 0) continue;
        expect(r.partition).toBe(slowAt.partition);
        expect(BigInt(r.offset) > BigInt(slowAt.offset)).toBe(true);
      }
    });

    it('readAll returns what the topics held at call time, and nothing from other topics', async () => {
      const t = await open();
      const [a, b, other, missing] = ['a', 'b', 'other', 'missing'].map((s) => t.topics(`readall-${s}-${short()}`)) as [
        string,
        string,
        string,
        string,
      ];
      // One key per topic: one partition, so the order of the read is defined
      const [keyA, keyB] = [randomUUID(), randomUUID()];
      const inA = [0, 1, 2].map((seq) => event(keyA, seq));
      const inB = [3, 4].map((seq) => event(keyB, seq));
      await t.log.append(a, inA);
      await t.log.append(b, inB);
      await t.log.append(other, [event(randomUUID(), 9)]);
      // When readAll runs, and an event is appended to `a` during the read
      const seen: LogRecord[] = [];
      const count = await t.log.readAll([a, b, missing], async (r) => {
        seen.push(r);
        if (seen.length === 1) await t.log.append(a, [event(keyA, 99)]);
      });
      // Then it visited exactly the five events present at call time, per topic in order
      expect(count).toBe(5);
      expect(seen.filter((r) => r.topic === a).map((r) => r.event)).toEqual(inA);
      expect(seen.filter((r) => r.topic === b).map((r) => r.event)).toEqual(inB);
      expect(seen.every((r) => r.topic === a || r.topic === b)).toBe(true);
    });

    it('refuses invalid events and stores nothing of a refused append', async () => {
      const t = await open();
      const topic = t.topics(`invalid-${short()}`);
      const valid = event(randomUUID(), 0);
      await t.log.append(topic, [valid]);
      // When an append carries an invalid event, or an unknown version, next to a valid one
      const invalid = { ...event(randomUUID(), 1), tenantId: 'not a tenant id!' };
      const future = { ...event(randomUUID(), 2), version: 2 } as unknown as LogEvent;
      await expect(t.log.append(topic, [event(randomUUID(), 3), invalid])).rejects.toMatchObject({ name: 'EventDecodeError' });
      await expect(t.log.append(topic, [future])).rejects.toThrow(/version/);
      // Then only the first event is in the topic
      const seen: LogEvent[] = [];
      expect(await t.log.readAll([topic], (r) => void seen.push(r.event))).toBe(1);
      expect(seen).toEqual([valid]);
    });

    it('stores every one of many concurrent appends exactly once', async () => {
      const t = await open();
      const topic = t.topics(`concurrent-${short()}`);
      const events = Array.from({ length: 200 }, (_, i) => event(randomUUID(), i));
      // When 200 single-event appends run at once
      await Promise.all(events.map((e) => t.log.append(topic, [e])));
      // Then each is in the topic once
      const ids: string[] = [];
      expect(await t.log.readAll([topic], (r) => void ids.push(r.event.eventId))).toBe(200);
      expect(new Set(ids)).toEqual(new Set(events.map((e) => e.eventId)));
    });
    it('reads from a time: each partition from its first record written at or after sinceMs', async () => {
      const t = await open();
      const [a, b, c] = [t.topics(`since-a-${short()}`), t.topics(`since-b-${short()}`), t.topics(`since-c-${short()}`)];
      // Given records of three topics written before a moment (on Kafka their random keys spread them over partitions)
      const early = Array.from({ length: 6 }, (_, i) => event(randomUUID(), i));
      await t.log.append(a, early.slice(0, 2));
      await t.log.append(b, early.slice(2, 4));
      await t.log.append(c, early.slice(4));
      await pause(300);
      const since = Date.now();
      await pause(20);
      // and records written after it
      const late = Array.from({ length: 6 }, (_, i) => event(randomUUID(), 10 + i));
      for (const e of late.slice(0, 3)) await t.log.append(a, [e]);
      await t.log.append(b, late.slice(3));
      // When the log is read from that moment (c has nothing since), then only the later records are visited
      const seen: number[] = [];
      expect(await t.log.readAll([a, b, c], (r) => void seen.push(seqOf(r.event)), { sinceMs: since })).toBe(6);
      expect(seen.sort((x, y) => x - y)).toEqual([10, 11, 12, 13, 14, 15]);
      // From after the last record nothing is read, from before the first everything
      expect(await t.log.readAll([a, b, c], () => {}, { sinceMs: Date.now() + 60_000 })).toBe(0);
      expect(await t.log.readAll([a, b, c], () => {}, { sinceMs: since - 3_600_000 })).toBe(12);
    });

    describe('appends with an expected version', () => {
      const conflictOf = (p: Promise<unknown>) =>
        p.then(
          () => 'written',
          (e: { code?: string; message?: string }) => e.code ?? e.message ?? 'failed',
        );
      const keyEvents = async (log: EventLog, topic: string, key: string) => {
        const seen: number[] = [];
        await log.readAll([topic], (r) => {
          if (r.key === key) seen.push(seqOf(r.event));
        });
        return seen;
      };

      it('writes when the stream is at the expected version and refuses (CONFLICT, nothing written) when not', async () => {
        const t = await open();
        const topic = t.topics(`expect-${short()}`);
        const key = randomUUID();
        // Given a new stream: version 0
        await t.log.append(topic, [event(key, 0)], { expectedVersion: 0 });
        // When a second writer still expects 0, and a third expects the right version
        expect(await conflictOf(t.log.append(topic, [event(key, 1)], { expectedVersion: 0 }))).toBe('CONFLICT');
        await t.log.append(topic, [event(key, 2), event(key, 3)], { expectedVersion: 1 });
        expect(await conflictOf(t.log.append(topic, [event(key, 4)], { expectedVersion: 1 }))).toBe('CONFLICT');
        // Then only the accepted appends are on the log, and the stream is at version 3
        await t.log.append(topic, [event(key, 5)], { expectedVersion: 3 });
        expect(await keyEvents(t.log, topic, key)).toEqual([0, 2, 3, 5]);
      });

      it('of many concurrent appends expecting the same version, writes exactly one', async () => {
        const t = await open();
        const topic = t.topics(`race-${short()}`);
        const key = randomUUID();
        await t.log.append(topic, [event(key, 0)], { expectedVersion: 0 });
        // When eight writers decided on version 1 append at once
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, (_, i) => conflictOf(t.log.append(topic, [event(key, 10 + i)], { expectedVersion: 1 }))),
        );
        // Then one is written, seven are refused, and the stream holds two events
        expect(outcomes.filter((o) => o === 'written')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'CONFLICT')).toHaveLength(7);
        const seen = await keyEvents(t.log, topic, key);
        expect(seen).toHaveLength(2);
        expect(seen[1]).toBe(10 + outcomes.indexOf('written'));
      });

      it('keeps stream versions per key, and a new instance (versions forgotten) takes them from the log', async () => {
        const first = await open();
        const suffix = `versions-${short()}`;
        const [a, b] = [randomUUID(), randomUUID()];
        await first.log.append(first.topics(suffix), [event(a, 0), event(a, 1)], { expectedVersion: 0 });
        await first.log.append(first.topics(suffix), [event(b, 0)], { expectedVersion: 0 });
        await first.cleanup();
        // When a new instance, which knows nothing but the log, appends
        const second = await open();
        await second.forgetStreamVersions?.();
        const topic = second.topics(suffix);
        expect(await conflictOf(second.log.append(topic, [event(a, 2)], { expectedVersion: 1 }))).toBe('CONFLICT');
        expect(await conflictOf(second.log.append(topic, [event(b, 1)], { expectedVersion: 0 }))).toBe('CONFLICT');
        await second.log.append(topic, [event(a, 3)], { expectedVersion: 2 });
        await second.log.append(topic, [event(b, 4)], { expectedVersion: 1 });
        // Then each key's stream went on from where the log left it
        expect(await keyEvents(second.log, topic, a)).toEqual([0, 1, 3]);
        expect(await keyEvents(second.log, topic, b)).toEqual([0, 4]);
      });
    });
  });
}
