import { setTimeout as sleep } from 'node:timers/promises';
import type { EachMessagePayload, Kafka } from 'kafkajs';
import {
  backOff,
  consumeRetryDelayMs,
  eventKey,
  type ConsumeContext,
  type ConsumeOptions,
  type Logger,
  type Subscription,
} from '@pressroom/core';
import type { EventCodec } from './registry-codec.ts';
import { KAFKA_RETRY } from './kafkajs-settings.ts';
import { MemberProgress, partitionId, type PartitionProgress } from './partition-progress.ts';

/** What a gathering consumer's fetch waits for (ConsumeOptions.gatherMs): more than its wait ever brings. */
export const GATHER_MIN_BYTES = 1 << 20;

export interface GroupTimings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** Upper bound of one idle fetch: how long `stop` and rebalances may wait on it. */
  maxWaitTimeMs: number;
  /** Least time between two offset commits of a member (MemberProgressOptions.commitIntervalMs). */
  commitIntervalMs: number;
}

export interface SubscriptionDeps {
  kafka: Kafka;
  codec: EventCodec;
  logger: Logger;
  timings: GroupTimings;
}

/**
 * One kafkajs consumer per `consume` call, reading ahead within each partition.
 *
 * - Up to `concurrency` records run at once, across partitions and within one: `eachMessage`
 *   only takes a record (waiting while the member is full, or while a record of the same key
 *   runs, so a key's records keep their order) and returns; the handler runs on its own. A
 *   slow record therefore does not hold back the records behind it on its partition.
 * - Offsets: kafkajs's auto-commit is off (it would commit what was taken, not what was
 *   handled). This member commits, per partition, the lowest record taken and not yet handled
 *   (`PartitionProgress`), after each completion (coalesced) and on stop: out-of-order
 *   completion, in-order commits. A crash re-handles what was unfinished or behind it, never
 *   loses a record.
 * - A rejected `handle` is retried here, after a back-off, heartbeating in between; the error
 *   never reaches kafkajs, whose own path is unsafe: a TypeError (any bug) is "not retriable"
 *   and stops the consumer for good. On stop, a record in back-off stays uncommitted.
 * - On a rebalance, progress of partitions this member lost is dropped (their records go,
 *   uncommitted, to the next owner; one still running here may run twice: at-least-once), and
 *   a record kafkajs delivers again from the committed position while it runs (or ran) here is
 *   skipped.
 * - `ctx.heartbeat()` is kafkajs's (rate-limited to the heartbeat interval); it never throws:
 *   a rebalance it reports is acted on by kafkajs after the current `eachMessage` returns.
 */
export async function startSubscription(deps: SubscriptionDeps, opts: ConsumeOptions): Promise<Subscription> {
  const { kafka, codec, timings } = deps;
  const logger = deps.logger.child({ group: opts.group });
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const consumer = kafka.consumer({
    groupId: opts.group,
    sessionTimeout: timings.sessionTimeoutMs,
    heartbeatInterval: timings.heartbeatIntervalMs,
    // Gathering: the broker answers a fetch when it holds GATHER_MIN_BYTES or the wait is over.
    ...(opts.gatherMs ? { maxWaitTimeInMs: opts.gatherMs, minBytes: GATHER_MIN_BYTES } : { maxWaitTimeInMs: timings.maxWaitTimeMs }),
    allowAutoTopicCreation: false,
    retry: { ...KAFKA_RETRY, retries: 8, restartOnFailure: async () => true },
  });
  /** Partitions assigned to this member (`topic:partition`) since its last join. */
  let assigned = new Set<string>();
  /** Progress of the partitions assigned to this member, and its commits (only of partitions still assigned). */
  const progress = new MemberProgress({
    owned: () => assigned,
    commit: (positions) =>
      consumer.commitOffsets(positions.map(({ topic, partition, position }) => ({ topic, partition, offset: position.toString() }))),
    commitIntervalMs: timings.commitIntervalMs,
    logger,
  });
  const stopping = progress.signal;

  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    logger.info('kafka: consumer joined its group', {
      memberId: payload.memberId,
      isLeader: payload.isLeader,
      assignment: payload.memberAssignment,
    });
    assigned = new Set(Object.entries(payload.memberAssignment).flatMap(([t, ps]) => ps.map((n) => partitionId(t, n))));
    progress.keepOnly(assigned);
  });
  consumer.on(consumer.events.REBALANCING, ({ payload }) => logger.info('kafka: group is rebalancing', { memberId: payload.memberId }));
  /**
   * Bumped each time kafkajs restarts the consumer after a crash (a broker restart, say). A restart
   * runs a new group member (new runner, new group state); the records the old one handed out are
   * still being handled here, but their payload's `heartbeat` belongs to the old member and fails
   * for good. Acting on that failure (letting go of the record) would abort every retry of such a
   * record, while the new member skips its redelivery as already taken: the record, and every
   * record waiting for its room or its key, would stall. So a stale payload's heartbeat is not
   * sent: the new member heartbeats by itself (its own records return at once).
   */
  let incarnation = 0;
  const heartbeatOf =
    (payload: EachMessagePayload, born: number): (() => Promise<void>) =>
    () =>
      born === incarnation ? payload.heartbeat() : Promise.resolve();
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    logger.error('kafka: consumer crashed', { error: String(payload.error), restart: payload.restart });
    incarnation++;
    if (!payload.restart && !stopping.aborted) restartAfterCrash();
  });

  /**
   * kafkajs restarts a crashed consumer only when it deems the error retriable; some errors of a
   * broker restart are not (e.g. "Failed to find group coordinator", seen in the broker-outage
   * spec), and the consumer would then stay stopped for good: its lane stalls with records
   * accepted on the log. Such a crash has already disconnected the consumer (kafkajs disconnects
   * before it reports the crash), so this connects and runs it again, backing off while the
   * broker is away, until it runs or the subscription stops. One loop at a time; a crash while it
   * runs makes it go round once more.
   */
  let restartWanted = false;
  let restarting: Promise<void> | undefined;
  function restartAfterCrash(): void {
    restartWanted = true;
    restarting ??= (async () => {
      for (let attempt = 1; restartWanted && !stopping.aborted; attempt++) {
        restartWanted = false;
        if (!(await backOff(consumeRetryDelayMs(attempt), stopping))) break;
        try {
          await consumer.connect();
          await consumer.run(runOptions);
          logger.warn('kafka: consumer started again after a crash kafkajs does not restart from', { attempt });
        } catch (e) {
          logger.error('kafka: starting the consumer again failed; trying again', { attempt, error: String(e) });
          await consumer.disconnect().catch(() => {});
          restartWanted = true;
        }
      }
    })().finally(() => (restarting = undefined));
  }

  async function eachMessage(payload: EachMessagePayload): Promise<void> {
    const { topic, partition, message } = payload;
    const offset = BigInt(message.offset);
    const key = message.key?.toString() ?? '';
    const heartbeat = heartbeatOf(payload, incarnation);
    const p = progress.of(topic, partition);
    if (p.seen(offset)) return;
    // Bounded read-ahead, one record of a key at a time. While waiting, the member stays alive.
    // A partition lost meanwhile ends the wait (see below).
    while (!stopping.aborted && progress.isCurrent(topic, partition, p) && (progress.handling >= concurrency || p.keyBusy(key))) {
      await Promise.race([progress.changed, sleep(timings.heartbeatIntervalMs)]);
      await heartbeat().catch(() => {});
    }
    // Not taken (stopping, or the partition went to another member meanwhile): never committed by
    // this member, and nothing after it on its partition is taken either.
    if (stopping.aborted || !assigned.has(partitionId(topic, partition))) return;
    // The partition was lost and assigned again while this delivery waited: this record belongs
    // to the old assignment, and the new one delivers again from the committed position. Taken
    // into the new progress, it would mark those redeliveries below it as seen (skipped), and run
    // beside a record of its key the old assignment still runs.
    if (!progress.isCurrent(topic, partition, p)) return;
    // Taken meanwhile by another delivery of the same record: after a crash, kafkajs's new runner
    // delivers again from the committed position while the old runner's call still waits here.
    // (`take` would throw, and an error thrown from eachMessage is "not retriable" to kafkajs: the
    // consumer would stop for good.)
    if (p.seen(offset)) return;
    p.take(offset, key);
    progress.handle(handleRecord(payload, heartbeat, p, offset, key));
  }

  /**
   * One attempt's context: its signal lets go of the record when the subscription stops or a
   * heartbeat reports a rebalance, so a handler waiting out a long retry never keeps this member
   * from rejoining within the rebalance timeout.
   */
  function attemptContext(heartbeat: () => Promise<void>): { ctx: ConsumeContext; done: () => void } {
    const release = new AbortController();
    const onStop = () => release.abort(new Error('subscription stopping'));
    if (stopping.aborted) onStop();
    else stopping.addEventListener('abort', onStop, { once: true });
    const ctx: ConsumeContext = {
      heartbeat: async () => {
        try {
          await heartbeat();
        } catch (e) {
          logger.debug('kafka: heartbeat reported a rebalance; letting go of the record', { error: String(e) });
          release.abort(e);
        }
      },
      signal: release.signal,
    };
    return { ctx, done: () => stopping.removeEventListener('abort', onStop) };
  }

  async function handleRecord(
    payload: EachMessagePayload,
    heartbeat: () => Promise<void>,
    p: PartitionProgress,
    offset: bigint,
    key: string,
  ) {
    const { topic, partition, message } = payload;
    for (let attempt = 1; ; attempt++) {
      const { ctx, done } = attemptContext(heartbeat);
      try {
        if (!message.value) throw new Error('record has no value');
        const event = await codec.decode(message.value);
        // LogAppendTime on the topics we create (see TopicAdmin): the broker's time of the write.
        const writtenAt = Number(message.timestamp);
        const handled = await opts.handle(
          {
            topic,
            partition,
            offset: message.offset,
            key: message.key?.toString() ?? eventKey(event),
            event,
            ...(writtenAt > 0 ? { writtenAt } : {}),
          },
          ctx,
        );
        p.finish(offset, key);
        return handled;
      } catch (e) {
        const delay = consumeRetryDelayMs(attempt);
        const fields = { topic, partition, offset: message.offset, requestId: message.key?.toString(), attempt, error: String(e) };
        // Loud once it looks stuck (e.g. an event version this build does not know).
        if (attempt >= 5) logger.error('kafka: record not handled; it will be delivered again', fields);
        else logger.warn('kafka: record not handled; it will be delivered again', fields);
        // The partition went to another member: the record is theirs now (never committed here).
        const lost = !assigned.has(partitionId(topic, partition));
        if (lost || !(await backOff(delay, stopping))) {
          // Stays open in its partition's progress: the committed position stays at or before it.
          p.release(key);
          return;
        }
        await heartbeat().catch(() => {});
      } finally {
        done();
      }
    }
  }

  const runOptions = { autoCommit: false, partitionsConsumedConcurrently: concurrency, eachMessage };
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: opts.topics, fromBeginning: opts.fromBeginning ?? true });
    await consumer.run(runOptions);
  } catch (e) {
    await consumer.disconnect().catch(() => {});
    throw e;
  }

  return {
    // Handlers in flight finish (or give up in back-off); then the final positions, while still a member.
    stop: () => progress.stop(() => consumer.disconnect()),
  };
}
