import kafkajs, { type Message, type PartitionMetadata, type Producer } from 'kafkajs';
import {
  eventKey,
  parseEvent,
  silentLogger,
  type ConsumerLag,
  type EventLog,
  type LogRecord,
  type Logger,
  type ReadAllOptions,
  type StreamVersionGuard,
  type Subscription,
} from '@pressroom/core';
import { PressroomError, logUnavailable, versionConflict } from '@pressroom/domain';
import { AppendQueue } from './append-queue.ts';
import { KAFKA_RETRY, kafkajsLogCreator } from './kafkajs-settings.ts';
import { startSubscription, type GroupTimings } from './kafka-subscription.ts';
import {
  platformaticProducer,
  platformaticReadAll,
  platformaticReadPartition,
  startPlatformaticSubscription,
} from './platformatic-client.ts';
import { readAllRecords, readPartitionRange } from './read-all.ts';
import { createRegistryCodec, jsonEventCodec, type EventCodec } from './registry-codec.ts';
import { TopicAdmin } from './topic-admin.ts';
import { mendKafkajsIdleLoop } from './kafkajs-idle-loop.ts';

const { Kafka, logLevel, Partitioners } = kafkajs;

export interface KafkaEventLogOptions {
  brokers: string[];
  clientId: string;
  /** Confluent-compatible registry API root; without it values are schema-validated JSON. */
  schemaRegistryUrl?: string;
  /** Prepended to registry subjects (`<prefix>pressroom.<Type>.v1`). Default none. */
  subjectPrefix?: string;
  logger?: Logger;
  /** Consumer group session timeout. Default 30 000 ms. */
  sessionTimeoutMs?: number;
  /** Consumer heartbeat interval. Default a tenth of the session timeout, at most 3 000 ms. */
  heartbeatIntervalMs?: number;
  /**
   * Least time between two offset commits of one consumer-group member. Default 0 here: a commit
   * as each handled record ends (joined to the one running); the apps pass
   * PRESSROOM_KAFKA_COMMIT_INTERVAL_MS (1 000 ms by default), which cuts about a fifth of the
   * machine's CPU per distributed render at concurrency 1 (a commit per record is a request and a
   * write to __consumer_offsets per group). Stopping commits at once whatever it is.
   */
  commitIntervalMs?: number;
  /** Topics created (if missing) before the factory resolves. Others are created on first use. */
  topics?: string[];
  /** Partitions of the topics this adapter creates. Default 6. */
  partitions?: number;
  /** Replication factor of the topics this adapter creates. Default: the broker's default. */
  replicationFactor?: number;
  /** Bound on one append, connecting included; past it the append rejects LOG_UNAVAILABLE. Default 10 000 ms. */
  appendTimeoutMs?: number;
  /**
   * Keeps stream versions for appends with an expected version (Kafka cannot check them).
   * Without it such an append is refused as a programming error.
   */
  versionGuard?: StreamVersionGuard;
  /**
   * The client of the data path (produce, consume, reads): `kafkajs` (default) or
   * `platformatic` (@platformatic/kafka; see docs/kafka-client.md). Admin work stays on kafkajs.
   */
  client?: KafkaClientName;
}

export type KafkaClientName = 'kafkajs' | 'platformatic';

export interface KafkaEventLog extends EventLog {
  /** Creates the missing topics (idempotent). `partitions` defaults to the adapter's setting. */
  ensureTopics(names: string[], partitions?: number): Promise<void>;
  /** End offset minus committed offset, per group and partition, read from the brokers (admin API). */
  lag(): Promise<ConsumerLag[]>;
  groupLag(group: string, topics: string[]): Promise<number>;
}

const PING_TIMEOUT_MS = 5_000;

/**
 * EventLog on Kafka (kafkajs). Connections are opened lazily and owned here: an unreachable
 * cluster does not fail the factory (unless `topics` asks for start-up work), it makes
 * `append` reject LOG_UNAVAILABLE within `appendTimeoutMs` and `ping` reject.
 *
 * - Producer: idempotent, acks from all in-sync replicas, key = requestId (the default,
 *   Java-compatible partitioner keeps a render's events on one partition), one send in flight
 *   carrying every append queued meanwhile (see AppendQueue).
 * - Values: registry wire format when `schemaRegistryUrl` is set (schemas registered before
 *   the factory resolves), JSON otherwise; `parseEvent` on the way in and out.
 * - Topics used by `append` or `consume` are created on first use with `partitions`.
 */
export async function createKafkaEventLog(opts: KafkaEventLogOptions): Promise<KafkaEventLog> {
  const logger = opts.logger ?? silentLogger;
  const sessionTimeoutMs = opts.sessionTimeoutMs ?? 30_000;
  const timings: GroupTimings = {
    sessionTimeoutMs,
    heartbeatIntervalMs: opts.heartbeatIntervalMs ?? Math.min(3_000, Math.floor(sessionTimeoutMs / 10)),
    maxWaitTimeMs: 1_000,
    commitIntervalMs: opts.commitIntervalMs ?? 0,
  };
  const appendTimeoutMs = opts.appendTimeoutMs ?? 10_000;
  const codec: EventCodec = opts.schemaRegistryUrl
    ? await createRegistryCodec({ url: opts.schemaRegistryUrl, ...(opts.subjectPrefix ? { subjectPrefix: opts.subjectPrefix } : {}) })
    : jsonEventCodec;
  mendKafkajsIdleLoop();
  const kafka = new Kafka({
    brokers: opts.brokers,
    clientId: opts.clientId,
    connectionTimeout: 3_000,
    retry: KAFKA_RETRY,
    logLevel: logLevel.WARN,
    logCreator: kafkajsLogCreator(logger),
  });
  const topicAdmin = new TopicAdmin(
    kafka,
    { partitions: opts.partitions ?? 6, ...(opts.replicationFactor ? { replicationFactor: opts.replicationFactor } : {}) },
    logger,
  );
  const subscriptions = new Set<Subscription>();
  /** The groups this process consumes with, and their topics: what `lag` reports. */
  const groups = new Map<Subscription, { group: string; topics: string[] }>();
  let producer: Promise<Producer> | undefined;
  let producerClient: Producer | undefined;
  let closed = false;

  function connectedProducer(): Promise<Producer> {
    if (!producer) {
      const p = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      const connecting = p.connect().then(() => p);
      producer = connecting;
      producerClient = p;
      connecting.catch(() => {
        if (producer !== connecting) return;
        producer = undefined;
        producerClient = undefined;
        void p.disconnect().catch(() => {});
      });
    }
    return producer;
  }

  /** Partitions per topic (a topic's count never shrinks; Pressroom never grows one in flight). */
  const PARTITION_COUNT_ATTEMPTS = 10;
  const partitionCounts = new Map<string, number>();
  async function countPartitions(topics: string[]): Promise<void> {
    // A topic created a moment ago may not show its partitions in the metadata yet: ask again
    // (briefly), and never remember a count of 0 (it would refuse every later append to it).
    for (let attempt = 0; ; attempt++) {
      const missing = topics.filter((t) => !partitionCounts.has(t));
      if (missing.length === 0) return;
      const { topics: meta } = await (await topicAdmin.admin()).fetchTopicMetadata({ topics: missing });
      for (const t of meta) if (t.partitions.length > 0) partitionCounts.set(t.name, t.partitions.length);
      if (attempt >= PARTITION_COUNT_ATTEMPTS) return; // partitionOf then refuses: the append was never sent
      await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
    }
  }
  const partitioner = Partitioners.DefaultPartitioner();
  /** The producer's own choice (murmur2 of the key), made here so the append knows each record's partition. */
  function partitionOf(topic: string, message: Message): number {
    const count = partitionCounts.get(topic);
    if (!count) throw new Error(`no partition count for ${topic}`);
    const partitionMetadata = Array.from({ length: count }, (_, i) => ({ partitionId: i, leader: 0 }) as PartitionMetadata);
    return partitioner({ topic, partitionMetadata, message });
  }

  const readDeps = { kafka, topicAdmin, codec, logger, clientId: opts.clientId, timings };
  const onPlatformatic = opts.client === 'platformatic';
  const platformaticDeps = { brokers: opts.brokers, clientId: opts.clientId, codec, logger, timings, topicAdmin };
  const pfProducer = onPlatformatic ? platformaticProducer(platformaticDeps, appendTimeoutMs) : undefined;
  const readAllOf = (topics: string[], visit: (r: LogRecord) => Promise<void> | void, opts: ReadAllOptions = {}) =>
    onPlatformatic ? platformaticReadAll(platformaticDeps, topics, visit, opts) : readAllRecords(readDeps, topics, visit, opts);

  const queue = new AppendQueue({
    timeoutMs: appendTimeoutMs,
    async send(topics, wire) {
      await topicAdmin.ensure(topics);
      await countPartitions(topics);
      if (pfProducer) {
        const topicMessages = wire();
        if (topicMessages.length === 0) return [];
        for (const { topic, messages } of topicMessages) for (const m of messages) m.partition = partitionOf(topic, m);
        return pfProducer.send(topicMessages);
      }
      const p = await connectedProducer();
      // From here on, in one tick: what is handed to the client may be written.
      const topicMessages = wire();
      if (topicMessages.length === 0) return [];
      for (const { topic, messages } of topicMessages) for (const m of messages) m.partition = partitionOf(topic, m);
      const written = await p.sendBatch({ topicMessages, acks: -1, timeout: appendTimeoutMs });
      return written.map((r) => ({ topic: r.topicName, partition: r.partition, baseOffset: r.baseOffset ?? r.offset ?? '' }));
    },
  });

  if (opts.topics?.length) await topicAdmin.ensure(opts.topics);

  return {
    async append(topic, events, options = {}) {
      if (events.length === 0) return [];
      const messages = await Promise.all(
        events.map(async (e) => {
          const event = parseEvent(e);
          return { key: eventKey(event), value: await codec.encode(event) };
        }),
      );
      const expected = options.expectedVersion;
      if (expected === undefined) return queue.append(topic, messages);
      // A conditional append: reserve the next version in the guard, append, settle.
      const key = messages[0]?.key as string;
      if (messages.some((m) => m.key !== key)) throw new Error("an append with an expected version must hold one key's events");
      const guard = opts.versionGuard;
      if (!guard) throw new PressroomError('INTERNAL', 'This event log has no version guard; it cannot check expected versions.');
      const countOnLog = async () => {
        const counts = new Map<string, number>();
        try {
          await readAllOf([topic], (r) => void counts.set(r.key, (counts.get(r.key) ?? 0) + 1));
        } catch (e) {
          throw logUnavailable(e);
        }
        return counts;
      };
      const reservation = await guard.reserve(topic, key, expected, messages.length, countOnLog);
      if (!reservation.reserved) throw versionConflict(`Stream ${key} of ${topic}`, expected, reservation.actual);
      const positions = await queue.append(topic, messages);
      await guard.settle(topic, key, reservation.token).catch((e: unknown) => {
        // Unsettled only means a conflicting writer recounts the log after the settle window.
        logger.warn('kafka: could not settle a stream version reservation', { topic, key, error: String(e) });
      });
      return positions;
    },

    async endOffsets(topic) {
      if (closed) throw logUnavailable(new Error('the event log is closed'));
      try {
        if ((await topicAdmin.existing([topic])).length === 0) return [];
        const offsets = await (await topicAdmin.admin()).fetchTopicOffsets(topic);
        return offsets.map((o) => ({ partition: o.partition, end: o.high }));
      } catch (e) {
        throw logUnavailable(e);
      }
    },

    async readPartition(topic, range, visit) {
      if (closed) throw logUnavailable(new Error('the event log is closed'));
      try {
        await (onPlatformatic
          ? platformaticReadPartition(platformaticDeps, topic, range, visit)
          : readPartitionRange(readDeps, topic, range, visit));
      } catch (e) {
        throw e instanceof PressroomError ? e : logUnavailable(e);
      }
    },

    async consume(options) {
      if (closed) throw logUnavailable(new Error('the event log is closed'));
      let sub: Subscription;
      try {
        await topicAdmin.ensure(options.topics);
        sub = onPlatformatic
          ? await startPlatformaticSubscription(platformaticDeps, options)
          : await startSubscription({ kafka, codec, logger, timings }, options);
      } catch (e) {
        throw logUnavailable(e);
      }
      subscriptions.add(sub);
      groups.set(sub, { group: options.group, topics: options.topics });
      return {
        async stop() {
          await sub.stop();
          subscriptions.delete(sub);
          groups.delete(sub);
        },
      };
    },

    readAll(topics, visit, opts) {
      return readAllOf(topics, visit, opts);
    },

    async ping() {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
      });
      try {
        await Promise.race([topicAdmin.admin().then((a) => a.describeCluster()), deadline]);
      } catch (e) {
        throw logUnavailable(e);
      } finally {
        clearTimeout(timer);
      }
    },

    async lag() {
      const admin = await topicAdmin.admin();
      const ends = new Map<string, Promise<{ partition: number; high: string; low: string }[]>>();
      const endsOf = (topic: string) => {
        let e = ends.get(topic);
        if (!e) ends.set(topic, (e = admin.fetchTopicOffsets(topic)));
        return e;
      };
      const out: ConsumerLag[] = [];
      for (const { group, topics } of new Map([...groups.values()].map((g) => [g.group, g])).values()) {
        for (const { topic, partitions } of await admin.fetchOffsets({ groupId: group, topics })) {
          const topicEnds = await endsOf(topic);
          for (const { partition, offset } of partitions) {
            const end = topicEnds.find((e) => e.partition === partition);
            if (!end) continue;
            // No committed position yet: the group starts at the beginning (what is left of it).
            const from = offset === '-1' ? BigInt(end.low) : BigInt(offset);
            const lag = BigInt(end.high) - from;
            out.push({ group, topic, partition, lag: Number(lag > 0n ? lag : 0n) });
          }
        }
      }
      return out;
    },

    async groupLag(group, topics) {
      const admin = await topicAdmin.admin();
      let total = 0n;
      for (const { topic, partitions } of await admin.fetchOffsets({ groupId: group, topics })) {
        const ends = await admin.fetchTopicOffsets(topic);
        for (const { partition, offset } of partitions) {
          const end = ends.find((e) => e.partition === partition);
          if (!end) continue;
          const from = offset === '-1' ? BigInt(end.low) : BigInt(offset);
          if (BigInt(end.high) > from) total += BigInt(end.high) - from;
        }
      }
      return Number(total);
    },

    ensureTopics(names, partitions) {
      return topicAdmin.ensure(names, partitions);
    },

    async close() {
      if (closed) return;
      closed = true;
      queue.close();
      await Promise.allSettled([...subscriptions].map((s) => s.stop()));
      const p = producerClient;
      producer = undefined;
      producerClient = undefined;
      await Promise.allSettled([p?.disconnect(), pfProducer?.close(), topicAdmin.close(), opts.versionGuard?.close()]);
    },
  };
}
