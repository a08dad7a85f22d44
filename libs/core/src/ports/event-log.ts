import type { LogEvent } from '@pressroom/schemas';

/** Topic names; a prefix lets tests and tenants of a shared cluster keep their own. */
export interface TopicNames {
  /** Also the prefix of consumer group ids, so two deployments on one cluster never share a group. */
  prefix: string;
  requestedSync: string;
  requestedAsync: string;
  completed: string;
  webhooks: string;
  /** Template events (TemplateCreated/Revised/Deleted), keyed by templateId. */
  templates: string;
  /** Catalog events (tenants, API keys, S3 connections, webhook secrets), keyed by tenantId. */
  catalog: string;
  /** Asset events (AssetUploaded/Deleted), keyed by tenantId. */
  assets: string;
}

export function topicNames(prefix = 'pressroom'): TopicNames {
  return {
    prefix,
    requestedSync: `${prefix}.render.requested.sync`,
    requestedAsync: `${prefix}.render.requested.async`,
    completed: `${prefix}.render.completed`,
    webhooks: `${prefix}.webhook.events`,
    templates: `${prefix}.templates`,
    catalog: `${prefix}.catalog`,
    assets: `${prefix}.assets`,
  };
}

/**
 * The partition key of an event: requestId for render and webhook events, templateId for
 * template events, tenantId for catalog and asset events.
 */
export function eventKey(event: LogEvent): string {
  if ('requestId' in event) return event.requestId;
  if ('templateId' in event) return event.templateId;
  return event.tenantId;
}

export interface LogRecord {
  topic: string;
  partition: number;
  /** Position in the partition, as a decimal string (Kafka offsets exceed 2^53). */
  offset: string;
  /** The event's key (see `eventKey`): one render's, or one template's, events stay in order on one partition. */
  key: string;
  event: LogEvent;
  /**
   * When the log stored the record, in ms since the epoch on the log's own clock (Kafka:
   * the `LogAppendTime` of the topics Pressroom creates; embedded: the time of the write).
   * Absent where the log cannot tell. The render worker compares it with a request's `acceptBy`.
   */
  writtenAt?: number;
}

export interface ConsumeContext {
  /** Keeps group membership alive during a long handler (Kafka heartbeat); a no-op where not needed. */
  heartbeat(): Promise<void>;
  /**
   * Aborted when this member should let go of the record: the subscription is stopping, or a
   * heartbeat reported that the group is rebalancing (the record may go to another member).
   * A handler that waits (retry back-off) stops waiting and rejects: the record stays
   * uncommitted and is handled again. Absent where nothing can take the record away.
   */
  signal?: AbortSignal;
}

export interface ConsumeOptions {
  /** Consumer group: members share the work, each record is handled by one member. */
  group: string;
  topics: string[];
  /** Where a group with no committed position starts. Default: the beginning. */
  fromBeginning?: boolean;
  /** Records handled at once by this member (across partitions). Default 1. */
  concurrency?: number;
  /**
   * For a consumer whose latency matters less than its cost (the batch finisher): the log may
   * hold a read up to this long to gather more records, so one request brings several and their
   * commits go together. Default: a read answers as soon as one record is there. Adapters without
   * a network (the embedded log) ignore it.
   */
  gatherMs?: number;
  /**
   * Must not throw for bad records: turn failures into events. A rejection is treated as a
   * crash of this member: the record is not committed and will be handled again (at-least-once).
   * Resolving `IGNORED` says the record changed nothing here (not this consumer's business):
   * see `Handled`.
   */
  handle(record: LogRecord, ctx: ConsumeContext): Promise<Handled>;
}

/**
 * A record's handler left nothing behind: its position need not be committed at once, it goes
 * with a later commit (the member's next one, or within a second). A crash meanwhile only hands
 * the record again to a handler that ignores it again. On a render's path most records are
 * ignored by most groups (the webhook dispatcher and a sync render, the batch finisher and a
 * render outside a batch, the render cache and an outcome it does not index): a commit of their
 * own each was a request and a write to the broker's offsets topic (issue 13).
 */
export const IGNORED = 'ignored';
export type Handled = void | typeof IGNORED;

export interface Subscription {
  /** Stops fetching, waits for handlers in flight, commits their positions. */
  stop(): Promise<void>;
}

/**
 * The event log: the system of record.
 *
 * Adapters guarantee:
 * - `append` resolves only when every event is durably stored (Kafka: acks from all in-sync
 *   replicas; embedded: fsync), with the position of each event. It rejects with a PressroomError `LOG_UNAVAILABLE` otherwise,
 *   and the caller must not acknowledge the request.
 * - records with the same key keep their append order for consumers;
 * - delivery to a group is at-least-once: positions are committed after `handle` resolves;
 * - values are validated against the event schemas on the way in and out; an unknown
 *   event version fails loudly.
 * The adapter owns its connections and releases them in `close`.
 */
export interface AppendOptions {
  /**
   * The version the stream of the events' key (every event of one append then shares one key)
   * must be at: how many events with that key the topic holds. When it is not, the append
   * writes nothing and rejects with a PressroomError `CONFLICT`; two appends expecting the
   * same version can never both be written. Used for writes decided on current state
   * (template revisions, key and secret rotations). A stream written this way must be written
   * only this way: an adapter that keeps versions beside the log (Kafka) does not see
   * unconditional appends (it counts them only when it reads a stream's version from the log).
   */
  expectedVersion?: number;
}

/** A stream of a topic that cannot check versions itself keeps its version here (see the Kafka adapter). */
export interface StreamVersionGuard {
  /**
   * Moves the stream `key` of `topic` from `expected` to `expected + count` when it is at
   * `expected`. A guard that does not know the topic (never used, or it lost its data) first
   * takes every stream's version from the log (`countOnLog`: events per key). Resolves with
   * the version found when it is not `expected`.
   */
  reserve(
    topic: string,
    key: string,
    expected: number,
    count: number,
    countOnLog: () => Promise<Map<string, number>>,
  ): Promise<{ reserved: true; token: string } | { reserved: false; actual: number }>;
  /** The reserved append is on the log: the reservation is final. */
  settle(topic: string, key: string, token: string): Promise<void>;
  close(): Promise<void>;
}

/** Where the log wrote one appended event. */
export interface LogPosition {
  partition: number;
  /** Decimal string, like `LogRecord.offset`. */
  offset: string;
}

/** The end of one partition at some moment: the offset its next record gets. */
export interface PartitionEnd {
  partition: number;
  end: string;
}

export interface EventLog {
  /** Resolves, once every event is durably stored, with each event's position, in the order of `events`. */
  append(topic: string, events: LogEvent[], options?: AppendOptions): Promise<LogPosition[]>;
  /**
   * The end of each partition of `topic` at call time (a topic nobody wrote to: none, or ends
   * at 0). A lower bound for `readPartition`: every record appended after the call lies at or
   * past it.
   */
  endOffsets(topic: string): Promise<PartitionEnd[]>;
  /**
   * Visits the records of one partition with `from <= offset <= through`, in order, without
   * joining or moving any group's position; resolves once the record at `through` was visited
   * (the caller knows it exists: an append's position). Offsets no longer held (retention) are
   * skipped. Rejects LOG_UNAVAILABLE when the log cannot be read.
   */
  readPartition(
    topic: string,
    range: { partition: number; from: string; through: string },
    visit: (record: LogRecord) => Promise<void> | void,
  ): Promise<void>;
  consume(opts: ConsumeOptions): Promise<Subscription>;
  /**
   * Reads every record the topics hold at call time, from the beginning, in per-partition
   * order, without joining or moving any group's position. For replay and audit.
   * Resolves with the number of records visited.
   *
   * With `sinceMs`, each partition is read from its first record written at or after that time
   * (the log's own write time: Kafka's LogAppendTime, the embedded log's `writtenAt`) instead of
   * from the beginning, so a read about recent records costs what the log holds since then, not
   * the whole log. The bound follows the clock that stamped the records: a caller that needs
   * every record of a moment leaves a margin for clocks (the history leaves ID_CLOCK_SKEW_MS).
   */
  readAll(topics: string[], visit: (record: LogRecord) => Promise<void> | void, opts?: ReadAllOptions): Promise<number>;
  /** Resolves when the log is reachable (readiness). */
  ping(): Promise<void>;
  /**
   * How far each group this process consumes with is behind the end of each partition of its
   * topics (records not yet committed), at call time: the consumer-lag metric. Optional.
   */
  lag?(): Promise<ConsumerLag[]>;
  /**
   * Records of `topics` not yet committed by `group` (any group, consumed here or not), summed
   * over partitions: a lane's backlog, read by the ingress for back-pressure. Optional.
   */
  groupLag?(group: string, topics: string[]): Promise<number>;
  close(): Promise<void>;
}

/** How much of the log a readAll reads. */
export interface ReadAllOptions {
  /** Start each partition at its first record written at or after this time (ms since the epoch). */
  sinceMs?: number;
}

export interface ConsumerLag {
  group: string;
  topic: string;
  partition: number;
  /** Records after the group's committed position. */
  lag: number;
}
