import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs, { type EachMessagePayload, type Kafka } from 'kafkajs';
import { eventKey, type ConsumeContext, type ConsumeOptions, type Logger, type Subscription } from '@pressroom/core';
import type { EventCodec } from './registry-codec.ts';
import { KAFKA_RETRY } from './kafkajs-settings.ts';

const { KafkaJSError } = kafkajs;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

export interface GroupTimings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** Upper bound of one idle fetch: how long `stop` and rebalances may wait on it. */
  maxWaitTimeMs: number;
}

export interface SubscriptionDeps {
  kafka: Kafka;
  codec: EventCodec;
  logger: Logger;
  timings: GroupTimings;
}

/**
 * One kafkajs consumer per `consume` call.
 *
 * - `partitionsConsumedConcurrently = concurrency`: partitions run in parallel, each one
 *   record at a time, so a key's records (one partition) keep their order.
 * - Offsets: kafkajs resolves a record's offset only after `eachMessage` resolves and commits
 *   resolved offsets only (at most every second, at the end of each batch, on rebalance and on
 *   stop). So a position is committed only after `handle` resolved.
 * - A rejected `handle` is retried here, after a back-off, heartbeating in between; the error
 *   never reaches kafkajs, whose own path is unsafe: a TypeError (any bug) is "not retriable"
 *   and stops the consumer for good. If the group rebalances meanwhile, the heartbeat throws,
 *   kafkajs rejoins and the record goes, uncommitted, to its partition's next owner.
 * - `ctx.heartbeat()` is kafkajs's (rate-limited to the heartbeat interval); it never throws:
 *   a rebalance it reports is acted on by kafkajs after `handle` returns.
 */
export async function startSubscription(deps: SubscriptionDeps, opts: ConsumeOptions): Promise<Subscription> {
  const { kafka, codec, timings } = deps;
  const logger = deps.logger.child({ group: opts.group });
  const consumer = kafka.consumer({
    groupId: opts.group,
    sessionTimeout: timings.sessionTimeoutMs,
    heartbeatInterval: timings.heartbeatIntervalMs,
    maxWaitTimeInMs: timings.maxWaitTimeMs,
    allowAutoTopicCreation: false,
    retry: { ...KAFKA_RETRY, retries: 8, restartOnFailure: async () => true },
  });
  const stopping = new AbortController();
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) =>
    logger.info('kafka: consumer joined its group', {
      memberId: payload.memberId,
      isLeader: payload.isLeader,
      assignment: payload.memberAssignment,
    }),
  );
  consumer.on(consumer.events.REBALANCING, ({ payload }) => logger.info('kafka: group is rebalancing', { memberId: payload.memberId }));
  consumer.on(consumer.events.CRASH, ({ payload }) =>
    logger.error('kafka: consumer crashed', { error: String(payload.error), restart: payload.restart }),
  );

  async function eachMessage(payload: EachMessagePayload): Promise<void> {
    const { topic, partition, message } = payload;
    const heartbeat = () => payload.heartbeat();
    const ctx: ConsumeContext = {
      heartbeat: async () => {
        try {
          await heartbeat();
        } catch (e) {
          logger.debug('kafka: heartbeat reported a rebalance; handled after this record', { error: String(e) });
        }
      },
    };
    for (let attempt = 1; ; attempt++) {
      try {
        if (!message.value) throw new Error('record has no value');
        const event = await codec.decode(message.value);
        const key = message.key?.toString() ?? eventKey(event);
        // LogAppendTime on the topics we create (see TopicAdmin): the broker's time of the write.
        const writtenAt = Number(message.timestamp);
        await opts.handle({ topic, partition, offset: message.offset, key, event, ...(writtenAt > 0 ? { writtenAt } : {}) }, ctx);
        return;
      } catch (e) {
        const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempt - 1));
        const fields = { topic, partition, offset: message.offset, requestId: message.key?.toString(), attempt, error: String(e) };
        // Loud once it looks stuck (e.g. an event version this build does not know).
        if (attempt >= 5) logger.error('kafka: record not handled; it will be delivered again', fields);
        else logger.warn('kafka: record not handled; it will be delivered again', fields);
        if (!(await backOff(delay, stopping.signal))) {
          // Leaves the offset unresolved: kafkajs commits what came before and stops.
          throw new KafkaJSError('subscription stopping; the record stays uncommitted', { retriable: true });
        }
        await heartbeat();
      }
    }
  }

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: opts.topics, fromBeginning: opts.fromBeginning ?? true });
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: 1_000,
      partitionsConsumedConcurrently: Math.max(1, opts.concurrency ?? 1),
      eachMessage,
    });
  } catch (e) {
    await consumer.disconnect().catch(() => {});
    throw e;
  }

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        await consumer.disconnect();
      })();
      return stopped;
    },
  };
}

async function backOff(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
