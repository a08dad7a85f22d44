import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Consumer, Producer, type Message as PlatformaticMessage } from '@platformatic/kafka';
import type { Message as KafkajsMessage, TopicMessages } from 'kafkajs';
import {
  eventKey,
  type ConsumeContext,
  type ConsumeOptions,
  type LogRecord,
  type Logger,
  type ReadAllOptions,
  type Subscription,
} from '@pressroom/core';
import type { PartitionBase } from './append-queue.ts';
import { GATHER_MIN_BYTES, type GroupTimings } from './kafka-subscription.ts';
import { MemberProgress, partitionId, type PartitionProgress } from './partition-progress.ts';
import { partitionReadRange, partitionReads } from './read-all.ts';
import type { EventCodec } from './registry-codec.ts';
import type { TopicAdmin } from './topic-admin.ts';

/**
 * The data path of the event log on @platformatic/kafka (pure JavaScript, maintained), behind
 * `PRESSROOM_KAFKA_CLIENT=platformatic`: the producer, the group consumer and the group-less
 * reads. Topic management, offsets and lag stay on the kafkajs admin client (see
 * kafka-event-log.ts): this is the part of the client the evaluation (docs/kafka-client.md)
 * measures. Same guarantees as the kafkajs path: idempotent producer with acks from all
 * in-sync replicas and the Java-compatible partition of each key chosen before the send (so
 * both clients put a render's events on the same partition), commits of the lowest unfinished
 * record per partition, per-key order, retries with back-off on a rejected handler.
 */
export interface PlatformaticDeps {
  brokers: string[];
  clientId: string;
  codec: EventCodec;
  logger: Logger;
  timings: GroupTimings;
  topicAdmin: TopicAdmin;
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/** One idempotent producer; `send` takes what the AppendQueue hands over (partitions already chosen). */
export function platformaticProducer(deps: PlatformaticDeps, timeoutMs: number) {
  const producer = new Producer({
    clientId: deps.clientId,
    bootstrapBrokers: deps.brokers,
    idempotent: true,
    acks: -1,
    timeout: timeoutMs,
    autocreateTopics: false,
    retries: 3,
  });
  return {
    async send(topicMessages: TopicMessages[]): Promise<PartitionBase[]> {
      const messages = topicMessages.flatMap(({ topic, messages: ms }) =>
        ms.map((m: KafkajsMessage) => {
          const key = toBuffer(m.key);
          return { topic, partition: m.partition!, value: toBuffer(m.value)!, ...(key ? { key } : {}) };
        }),
      );
      const result = (await producer.send({ messages })) ?? {};
      return (result.offsets ?? []).map((o) => ({ topic: o.topic, partition: o.partition, baseOffset: String(o.offset) }));
    },
    close: () => producer.close(),
  };
}

function toBuffer(v: KafkajsMessage['key'] | KafkajsMessage['value']): Buffer | undefined {
  if (v === null || v === undefined) return undefined;
  return Buffer.isBuffer(v) ? v : Buffer.from(v);
}

/** A consumer in `groupId`; with `gatherMs`, its fetches wait to gather records (ConsumeOptions.gatherMs). */
function groupConsumer(deps: PlatformaticDeps, groupId: string, gatherMs?: number) {
  return new Consumer({
    clientId: deps.clientId,
    bootstrapBrokers: deps.brokers,
    groupId,
    sessionTimeout: deps.timings.sessionTimeoutMs,
    heartbeatInterval: deps.timings.heartbeatIntervalMs,
    ...(gatherMs ? { maxWaitTime: gatherMs, minBytes: GATHER_MIN_BYTES } : { maxWaitTime: deps.timings.maxWaitTimeMs }),
    autocommit: false,
  });
}

async function toRecord(codec: EventCodec, m: PlatformaticMessage): Promise<LogRecord> {
  if (!m.value || m.value.length === 0) throw new Error(`record ${m.topic}/${m.partition}@${m.offset} has no value`);
  const event = await codec.decode(m.value);
  const writtenAt = Number(m.timestamp);
  return {
    topic: m.topic,
    partition: m.partition,
    offset: String(m.offset),
    key: m.key && m.key.length ? m.key.toString() : eventKey(event),
    event,
    ...(writtenAt > 0 ? { writtenAt } : {}),
  };
}

/** readAll on a throwaway group that never commits (deleted afterwards), as the kafkajs path. */
export async function platformaticReadAll(
  deps: PlatformaticDeps,
  topics: string[],
  visit: (r: LogRecord) => Promise<void> | void,
  opts: ReadAllOptions = {},
): Promise<number> {
  const present = await deps.topicAdmin.existing([...new Set(topics)]);
  const admin = await deps.topicAdmin.admin();
  const reads = await partitionReads(admin, present, opts.sinceMs);
  const toRead = reads.filter((r) => r.mark !== undefined);
  const marks = new Map(toRead.map((r) => [`${r.topic}:${r.partition}`, r.mark!]));
  if (marks.size === 0) return 0;
  const withRecords = present.filter((t) => toRead.some((r) => r.topic === t));
  const groupId = `${deps.clientId}.read-all.${randomUUID()}`;
  const consumer = groupConsumer(deps, groupId);
  let count = 0;
  try {
    // From `sinceMs`: every partition of the topics read is placed (manual mode takes only the
    // partitions it is given), each at its first record of that time, or at its end when it has none.
    const stream =
      opts.sinceMs === undefined
        ? await consumer.consume({ topics: withRecords, mode: 'earliest', autocommit: false })
        : await consumer.consume({
            topics: withRecords,
            mode: 'manual',
            offsets: reads
              .filter((r) => withRecords.includes(r.topic))
              .map((r) => ({ topic: r.topic, partition: r.partition, offset: r.start })),
            autocommit: false,
          });
    const remaining = new Set(marks.keys());
    try {
      for await (const m of stream as AsyncIterable<PlatformaticMessage>) {
        const id = `${m.topic}:${m.partition}`;
        const mark = marks.get(id);
        if (mark === undefined || m.offset >= mark) continue;
        await visit(await toRecord(deps.codec, m));
        count += 1;
        if (m.offset >= mark - 1n) {
          remaining.delete(id);
          if (remaining.size === 0) break;
        }
      }
    } finally {
      await stream.close().catch(() => {});
    }
  } finally {
    await closeConsumer(consumer);
    await admin.deleteGroups([groupId]).catch(() => {});
  }
  return count;
}

/** readPartition: a throwaway group, the one partition read from `from` (or the oldest held) through `through`. */
export async function platformaticReadPartition(
  deps: PlatformaticDeps,
  topic: string,
  range: { partition: number; from: string; through: string },
  visit: (r: LogRecord) => Promise<void> | void,
): Promise<void> {
  const admin = await deps.topicAdmin.admin();
  const span = await partitionReadRange(admin, topic, range);
  if (!span) return;
  const { from, through } = span;
  const groupId = `${deps.clientId}.read-range.${randomUUID()}`;
  const consumer = groupConsumer(deps, groupId);
  try {
    const stream = await consumer.consume({
      topics: [topic],
      mode: 'manual',
      offsets: [{ topic, partition: range.partition, offset: from }],
      autocommit: false,
    });
    try {
      for await (const m of stream as AsyncIterable<PlatformaticMessage>) {
        if (m.partition !== range.partition || m.offset < from) continue;
        if (m.offset > through) break;
        await visit(await toRecord(deps.codec, m));
        if (m.offset === through) break;
      }
    } finally {
      await stream.close().catch(() => {});
    }
  } finally {
    await closeConsumer(consumer);
    await admin.deleteGroups([groupId]).catch(() => {});
  }
}

/**
 * A group member on @platformatic/kafka: the stream is read one record at a time; each record is
 * taken when the member has room (`concurrency`) and no record of its key runs, then handled on
 * its own; positions are committed per partition at the lowest unfinished record.
 */
export async function startPlatformaticSubscription(deps: PlatformaticDeps, opts: ConsumeOptions): Promise<Subscription> {
  const logger = deps.logger.child({ group: opts.group });
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const consumer = groupConsumer(deps, opts.group, opts.gatherMs);
  const assigned = () =>
    new Set(
      (consumer.assignments ?? []).flatMap((a: { topic: string; partitions: number[] }) =>
        a.partitions.map((n) => partitionId(a.topic, n)),
      ),
    );
  const progress = new MemberProgress({
    owned: assigned,
    commit: (positions) =>
      consumer.commit({
        offsets: positions.map(({ topic, partition, position }) => ({ topic, partition, offset: position, leaderEpoch: -1 })),
      }),
    commitIntervalMs: deps.timings.commitIntervalMs,
    logger,
  });
  const stopping = progress.signal;
  consumer.on('consumer:group:join', () => {
    progress.keepOnly(assigned());
    logger.info('kafka: consumer joined its group', { memberId: consumer.memberId });
  });

  async function handleRecord(m: PlatformaticMessage, p: PartitionProgress, key: string) {
    for (let attempt = 1; ; attempt++) {
      const release = new AbortController();
      const onStop = () => release.abort(new Error('subscription stopping'));
      stopping.addEventListener('abort', onStop, { once: true });
      const ctx: ConsumeContext = { heartbeat: async () => {}, signal: release.signal };
      try {
        const handled = await opts.handle(await toRecord(deps.codec, m), ctx);
        p.finish(m.offset, key);
        return handled;
      } catch (e) {
        const fields = { topic: m.topic, partition: m.partition, offset: String(m.offset), attempt, error: String(e) };
        if (attempt >= 5) logger.error('kafka: record not handled; it will be delivered again', fields);
        else logger.warn('kafka: record not handled; it will be delivered again', fields);
        const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempt - 1));
        if (!assigned().has(partitionId(m.topic, m.partition)) || stopping.aborted) {
          p.release(key);
          return;
        }
        try {
          await sleep(delay, undefined, { signal: stopping });
        } catch {
          p.release(key);
          return;
        }
      } finally {
        stopping.removeEventListener('abort', onStop);
      }
    }
  }

  const stream = await consumer.consume({
    topics: opts.topics,
    mode: 'committed',
    fallbackMode: opts.fromBeginning === false ? 'latest' : 'earliest',
    autocommit: false,
    sessionTimeout: deps.timings.sessionTimeoutMs,
    heartbeatInterval: deps.timings.heartbeatIntervalMs,
  });
  stream.on('error', (e: Error) => logger.error('kafka: consumer stream failed', { error: String(e) }));

  const reading = (async () => {
    for await (const m of stream as AsyncIterable<PlatformaticMessage>) {
      if (stopping.aborted) break;
      const key = m.key && m.key.length ? m.key.toString() : '';
      const p = progress.of(m.topic, m.partition);
      if (p.seen(m.offset)) continue;
      while (!stopping.aborted && progress.isCurrent(m.topic, m.partition, p) && (progress.handling >= concurrency || p.keyBusy(key))) {
        await Promise.race([progress.changed, sleep(deps.timings.heartbeatIntervalMs)]);
      }
      if (stopping.aborted) break;
      // Lost meanwhile, or lost and assigned again (a new progress: the new assignment delivers
      // again from the committed position; see the kafkajs subscription).
      if (!assigned().has(partitionId(m.topic, m.partition)) || !progress.isCurrent(m.topic, m.partition, p) || p.seen(m.offset)) continue;
      p.take(m.offset, key);
      progress.handle(handleRecord(m, p, key));
    }
  })().catch((e: unknown) => logger.error('kafka: consumer stopped reading', { error: String(e) }));

  return {
    stop: () =>
      progress.stop(async () => {
        await stream.close().catch(() => {});
        await reading;
        await closeConsumer(consumer);
      }),
  };
}

/** Leaves the group and closes (the typings pick the callback overload of `close(force)`). */
async function closeConsumer(consumer: Consumer): Promise<void> {
  await new Promise<void>((resolve) => consumer.close(true, () => resolve()));
}
