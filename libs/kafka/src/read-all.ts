import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kafka } from 'kafkajs';
import { decideTransientRetry, type TransientRetryPolicy } from '@pressroom/domain';
import { eventKey, type LogRecord, type Logger, type ReadAllOptions } from '@pressroom/core';
import type { EventCodec } from './registry-codec.ts';
import type { GroupTimings } from './kafka-subscription.ts';
import type { TopicAdmin } from './topic-admin.ts';

export interface ReadAllDeps {
  kafka: Kafka;
  topicAdmin: TopicAdmin;
  codec: EventCodec;
  logger: Logger;
  clientId: string;
  timings: GroupTimings;
}

const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/** Offsets of a topic created a moment ago: its partitions may have no leader yet. About 10 s of patience. */
const OFFSETS_RETRY: TransientRetryPolicy = { baseDelayMs: 100, maxDelayMs: 2_000, maxAttempts: 10 };

/**
 * The admin client's offsets of a topic, asked again while the broker answers with a transient
 * error (kafkajs gives up at once on NOT_LEADER_FOR_PARTITION or LEADER_NOT_AVAILABLE, which a
 * topic just created, or a partition moving, answers for a moment).
 */
export async function fetchOffsets(
  admin: Awaited<ReturnType<TopicAdmin['admin']>>,
  topic: string,
): Promise<{ partition: number; high: string; low: string }[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await admin.fetchTopicOffsets(topic);
    } catch (error) {
      const retriable = (error as { retriable?: boolean }).retriable === true;
      const decision = decideTransientRetry({
        failure: { retriable, message: String(error) },
        attempt,
        policy: OFFSETS_RETRY,
        random: Math.random(),
      });
      if (!decision.retry) throw error;
      await sleep(decision.delayMs);
    }
  }
}

/**
 * The offsets a readPartition visits: `from` clamped to the oldest offset the partition still
 * holds, through `through`; undefined when nothing is left to read. Shared by both clients.
 */
export async function partitionReadRange(
  admin: Awaited<ReturnType<TopicAdmin['admin']>>,
  topic: string,
  range: { partition: number; from: string; through: string },
): Promise<{ from: bigint; through: bigint } | undefined> {
  const held = (await fetchOffsets(admin, topic)).find((p) => p.partition === range.partition);
  if (!held) throw new Error(`${topic} has no partition ${range.partition}`);
  const through = BigInt(range.through);
  const from = BigInt(range.from) > BigInt(held.low) ? BigInt(range.from) : BigInt(held.low);
  return from > through ? undefined : { from, through };
}

/** Where a readAll reads one partition: from `start`, below `mark` (the high watermark taken before the read). */
export interface PartitionRead {
  topic: string;
  partition: number;
  /** Its oldest record held, or with `sinceMs` its first record written at or after that time. */
  start: bigint;
  /** Undefined when there is nothing to read (empty, or nothing written since `sinceMs`). */
  mark: bigint | undefined;
}

/** What a readAll reads in each partition of `topics`. Shared by both clients. */
export async function partitionReads(
  admin: Awaited<ReturnType<TopicAdmin['admin']>>,
  topics: string[],
  sinceMs: number | undefined,
): Promise<PartitionRead[]> {
  const reads: PartitionRead[] = [];
  for (const topic of topics) {
    const held = await fetchOffsets(admin, topic);
    // kafkajs answers the high watermark for a partition with nothing written since.
    const since = sinceMs === undefined ? undefined : await admin.fetchTopicOffsetsByTimestamp(topic, sinceMs);
    for (const p of held) {
      const [low, high] = [BigInt(p.low), BigInt(p.high)];
      const found = since?.find((s) => s.partition === p.partition);
      const start = found && BigInt(found.offset) > low ? BigInt(found.offset) : low;
      reads.push({ topic, partition: p.partition, start: start < high ? start : high, mark: start < high ? high : undefined });
    }
  }
  return reads;
}

/** A consumer in a group of its own that never commits (deleted by the caller afterwards): a read, not a subscription. */
function throwawayConsumer(deps: ReadAllDeps, purpose: string) {
  const groupId = `${deps.clientId}.${purpose}.${randomUUID()}`;
  const consumer = deps.kafka.consumer({
    groupId,
    sessionTimeout: deps.timings.sessionTimeoutMs,
    heartbeatInterval: deps.timings.heartbeatIntervalMs,
    maxWaitTimeInMs: deps.timings.maxWaitTimeMs,
    allowAutoTopicCreation: false,
  });
  return { groupId, consumer };
}

/** When a read is done: `finish` once, or `fail` with the first error (later handlers see `failed()` and stop). */
function completion() {
  let failure: { error: unknown } | undefined;
  let finish!: () => void;
  let fail!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = (error) => {
      failure ??= { error };
      reject(error instanceof Error ? error : new Error(String(error)));
    };
  });
  return { finished, finish, fail, failed: () => failure !== undefined };
}

/**
 * When a readAll is complete: every partition with records reached its mark (the high watermark
 * taken before the read), counting only batches known to be visited.
 */
export class ReadAllProgress {
  readonly #marks: ReadonlyMap<string, bigint>;
  readonly #remaining: Set<string>;

  constructor(marks: ReadonlyMap<string, bigint>) {
    this.#marks = marks;
    this.#remaining = new Set(marks.keys());
  }

  /**
   * eachBatch went through a batch to its end, or stopped at the mark: the partition is read
   * through `lastOffset` (kafkajs's, control records included). True when the read is complete.
   */
  batchTaken(key: string, lastOffset: bigint): boolean {
    const mark = this.#marks.get(key);
    if (mark !== undefined && lastOffset >= mark - 1n) this.#remaining.delete(key);
    return this.complete;
  }

  /**
   * kafkajs reported a batch's end. Only a batch it filtered out entirely (control records:
   * `batchSize` 0, eachBatch never called) moves the partition this way. Any other batch's end is
   * reported with its last offset even when eachBatch left it early (the runner stopping for a
   * restart): counting it would end the read with the rest of that batch never visited, a replay
   * with a hole (a view marked built without some of its records).
   */
  batchEnded(key: string, batchSize: number, lastOffset: bigint): boolean {
    return batchSize === 0 ? this.batchTaken(key, lastOffset) : this.complete;
  }

  get complete(): boolean {
    return this.#remaining.size === 0;
  }
}

/**
 * Reads every record the topics hold at call time. The high watermark of each partition is
 * taken with the admin client first; a consumer in a fresh throwaway group (kafkajs cannot
 * assign partitions without a group) reads from the beginning, visits records below those
 * marks one at a time, stops when every partition reached its mark, and the group is deleted.
 * It never commits, so no real group's position moves. Missing topics hold nothing.
 * A value that does not decode, or a visit that throws, ends the read with that error.
 */
export async function readAllRecords(
  deps: ReadAllDeps,
  topics: string[],
  visit: (record: LogRecord) => Promise<void> | void,
  opts: ReadAllOptions = {},
): Promise<number> {
  const present = await deps.topicAdmin.existing([...new Set(topics)]);
  const admin = await deps.topicAdmin.admin();
  const reads = await partitionReads(admin, present, opts.sinceMs);
  const toRead = reads.filter((r) => r.mark !== undefined);
  const marks = new Map(toRead.map((r) => [partitionKey(r.topic, r.partition), r.mark!]));
  if (marks.size === 0) return 0;
  const withRecords = present.filter((t) => toRead.some((r) => r.topic === t));
  // From `sinceMs`: each partition of those topics moves to its first record of that time, or to
  // its end when it has none (batches fetched from the beginning before a seek takes effect are
  // skipped by `next`).
  const seeks = opts.sinceMs === undefined ? [] : reads.filter((r) => withRecords.includes(r.topic));

  const { groupId, consumer } = throwawayConsumer(deps, 'read-all');
  const progress = new ReadAllProgress(marks);
  /** Next offset to visit per partition: a restarted consumer re-reads, nothing is visited twice. */
  const next = new Map<string, bigint>(seeks.map((r) => [partitionKey(r.topic, r.partition), r.start]));
  let count = 0;
  const done = completion();
  const { finished, finish, fail } = done;

  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (progress.batchEnded(partitionKey(payload.topic, payload.partition), payload.batchSize, BigInt(payload.lastOffset))) finish();
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) fail(payload.error);
  });

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: withRecords, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async (payload) => {
        const { batch } = payload;
        const key = partitionKey(batch.topic, batch.partition);
        const mark = marks.get(key);
        if (mark === undefined || done.failed()) return;
        for (const message of batch.messages) {
          // Left early: nothing is concluded from this batch (the restarted runner fetches it again).
          if (!payload.isRunning() || payload.isStale() || done.failed()) return;
          const offset = BigInt(message.offset);
          if (offset >= mark) break;
          if (offset < (next.get(key) ?? 0n)) continue;
          try {
            if (!message.value) throw new Error(`record ${batch.topic}/${batch.partition}@${message.offset} has no value`);
            const event = await deps.codec.decode(message.value);
            const record = {
              topic: batch.topic,
              partition: batch.partition,
              offset: message.offset,
              key: message.key?.toString() ?? eventKey(event),
              event,
              ...(Number(message.timestamp) > 0 ? { writtenAt: Number(message.timestamp) } : {}),
            };
            await visit(record);
          } catch (e) {
            fail(e);
            return;
          }
          next.set(key, offset + 1n);
          count += 1;
          await payload.heartbeat();
        }
        // Every record of the batch under the mark was visited (or had been before).
        if (progress.batchTaken(key, BigInt(batch.lastOffset()))) finish();
      },
    });
    for (const r of seeks) consumer.seek({ topic: r.topic, partition: r.partition, offset: String(r.start) });
    await finished;
  } finally {
    await consumer
      .disconnect()
      .catch((e: unknown) => deps.logger.warn('kafka: read-all consumer did not disconnect cleanly', { error: String(e) }));
    await admin
      .deleteGroups([groupId])
      .catch((e: unknown) => deps.logger.debug('kafka: read-all group not deleted', { groupId, error: String(e) }));
  }
  return count;
}

/**
 * Visits the records of one partition from `from` through `through` (both included; `through`
 * exists: an acknowledged append's offset). Like readAllRecords: a throwaway group that never
 * commits, deleted afterwards. It subscribes to the topic from its end and seeks only the one
 * partition back to `from` (clamped to the oldest offset still held), so other partitions cost
 * nothing but their new records, which are ignored.
 */
export async function readPartitionRange(
  deps: ReadAllDeps,
  topic: string,
  range: { partition: number; from: string; through: string },
  visit: (record: LogRecord) => Promise<void> | void,
): Promise<void> {
  const admin = await deps.topicAdmin.admin();
  const span = await partitionReadRange(admin, topic, range);
  if (!span) return;
  const { from, through } = span;

  const { groupId, consumer } = throwawayConsumer(deps, 'read-range');
  let next = from;
  const done = completion();
  const { finished, finish, fail } = done;
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) fail(payload.error);
  });
  // Control records (transaction markers) are filtered out of batches: a batch of only those tells
  // its progress by its end alone. Only such a batch, and only one that starts where the read is
  // (not one fetched from the topic's end before the seek took effect): any other batch's end is
  // reported even when eachBatch left it early, and would end the read before `through`.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.topic !== topic || payload.partition !== range.partition || payload.batchSize !== 0) return;
    if (payload.firstOffset !== null && BigInt(payload.firstOffset) <= next && BigInt(payload.lastOffset) >= through) finish();
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: false });
    await consumer.run({
      autoCommit: false,
      eachBatch: async (payload) => {
        const { batch } = payload;
        if (batch.topic !== topic || batch.partition !== range.partition || done.failed()) return;
        for (const message of batch.messages) {
          if (!payload.isRunning() || payload.isStale() || done.failed()) return;
          const offset = BigInt(message.offset);
          if (offset < next) continue;
          if (offset > through) break;
          try {
            if (!message.value) throw new Error(`record ${topic}/${batch.partition}@${message.offset} has no value`);
            const event = await deps.codec.decode(message.value);
            await visit({
              topic,
              partition: batch.partition,
              offset: message.offset,
              key: message.key?.toString() ?? eventKey(event),
              event,
              ...(Number(message.timestamp) > 0 ? { writtenAt: Number(message.timestamp) } : {}),
            });
          } catch (e) {
            fail(e);
            return;
          }
          next = offset + 1n;
          if (offset === through) finish();
        }
      },
    });
    consumer.seek({ topic, partition: range.partition, offset: String(from) });
    await finished;
  } finally {
    await consumer
      .disconnect()
      .catch((e: unknown) => deps.logger.warn('kafka: read-range consumer did not disconnect cleanly', { error: String(e) }));
    await admin
      .deleteGroups([groupId])
      .catch((e: unknown) => deps.logger.debug('kafka: read-range group not deleted', { groupId, error: String(e) }));
  }
}
