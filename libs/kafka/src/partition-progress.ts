import { IGNORED, type Logger } from '@pressroom/core';

/**
 * What one member has taken from one partition, so it can run records out of order and still
 * commit in order: the position to commit is the lowest record taken and not finished, or,
 * when none is open, the one after the last record taken. Offsets are bigint (Kafka's exceed
 * 2^53) and need not be contiguous (compaction, transaction markers).
 */
export class PartitionProgress {
  /** The offset after the last record taken; undefined before the first. */
  #next: bigint | undefined;
  readonly #open = new Set<bigint>();
  readonly #keys = new Set<string>();
  #committed: bigint | undefined;

  /**
   * Whether the record was already taken by this member (a redelivery after a rejoin, which
   * restarts from the committed position): it is running or done here, so it is skipped.
   */
  seen(offset: bigint): boolean {
    return this.#next !== undefined && offset < this.#next;
  }

  /** Whether a record of this key is running: the next one of that key waits (per-key order). */
  keyBusy(key: string): boolean {
    return this.#keys.has(key);
  }

  take(offset: bigint, key: string): void {
    if (this.seen(offset)) throw new Error(`offset ${offset} was taken already`);
    this.#next = offset + 1n;
    this.#open.add(offset);
    this.#keys.add(key);
  }

  /** The record's handler resolved: it no longer holds the committed position back. */
  finish(offset: bigint, key: string): void {
    this.#open.delete(offset);
    this.#keys.delete(key);
  }

  /** The handler gave up (stopping): the record stays open, so the position stays at or before it. */
  release(key: string): void {
    this.#keys.delete(key);
  }

  /** The position to commit (Kafka's meaning: the next record to read), or undefined when nothing changed since the last commit. */
  toCommit(): bigint | undefined {
    if (this.#next === undefined) return undefined;
    let low = this.#next;
    for (const offset of this.#open) if (offset < low) low = offset;
    return low === this.#committed ? undefined : low;
  }

  committed(position: bigint): void {
    this.#committed = position;
  }

  get openCount(): number {
    return this.#open.size;
  }
}

/** A partition's name within a member (`topic:partition`). */
export const partitionId = (topic: string, partition: number): string => `${topic}:${partition}`;

/** A position to commit: the next record of the partition to read. */
export interface PositionToCommit {
  topic: string;
  partition: number;
  position: bigint;
}

export interface MemberProgressOptions {
  /** The partitions the member owns now (see `partitionId`): only they are committed. */
  owned(): ReadonlySet<string>;
  /** The client's commit of these positions (one request). */
  commit(positions: PositionToCommit[]): Promise<void>;
  /**
   * Least time between two commits after records end (default 0: a commit as each one ends, or
   * joined to the one running). Stopping commits at once whatever it is.
   */
  commitIntervalMs?: number;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Least time between two commits when only ignored records ended (see `Handled` in
 * @pressroom/core). A record handled otherwise commits as `commitIntervalMs` says, carrying the
 * ignored ones' positions with it.
 */
export const IGNORED_COMMIT_INTERVAL_MS = 1_000;

/**
 * The progress of every partition one group member took records from, the records it is
 * handling, and its commits: what both Kafka clients' subscriptions keep. Commits are coalesced: one runs at a time, and the
 * next one carries every position that moved meanwhile. Only partitions still owned are
 * committed: a stale position must never overwrite the new owner's. A failed commit is logged,
 * not fatal: the position goes with a later commit, or the records are handled again.
 */
export class MemberProgress {
  readonly #partitions = new Map<string, { topic: string; partition: number; p: PartitionProgress }>();
  readonly #options: MemberProgressOptions;
  readonly #stopping = new AbortController();
  #stopped: Promise<void> | undefined;
  #committing: Promise<void> | undefined;
  #commitAgain = false;
  /** When the last commit request was sent (Date.now()), for commitIntervalMs. */
  #lastCommitAt = Number.NEGATIVE_INFINITY;
  /** The commit due at the end of the interval, if one is scheduled. */
  #commitTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the scheduled commit is due (Date.now() time). */
  #commitDueAt = 0;
  readonly #handling = new Set<Promise<void>>();
  #wake = () => {};
  #changed = new Promise<void>((resolve) => (this.#wake = resolve));

  constructor(options: MemberProgressOptions) {
    this.#options = options;
    this.#stopping.signal.addEventListener('abort', () => this.#notify());
  }

  /** Aborted when the member stops: take no more records, give up waits and back-offs. */
  get signal(): AbortSignal {
    return this.#stopping.signal;
  }

  /**
   * The subscription's `stop` (once; later calls answer the same promise): takes no more records,
   * lets the ones being handled end (or give up in back-off), commits the last positions while
   * still a member, then `close`s the client.
   */
  stop(close: () => Promise<void>): Promise<void> {
    this.#stopped ??= (async () => {
      this.#stopping.abort();
      await this.settle();
      await close();
    })();
    return this.#stopped;
  }

  /** How many taken records are being handled. */
  get handling(): number {
    return this.#handling.size;
  }

  /** Resolves when a record's handling ends or the member stops: a record waiting for room or for its key looks again. */
  get changed(): Promise<void> {
    return this.#changed;
  }

  /**
   * Tracks a taken record's handling; when it ends, waiting records are woken and the positions
   * committed: soon, or only within IGNORED_COMMIT_INTERVAL_MS when the handling resolved `ignored`
   * (it changed nothing; see `Handled` in @pressroom/core).
   */
  handle(handling: Promise<unknown>): void {
    let ignored = false;
    const task = handling
      .then((handled) => {
        ignored = handled === IGNORED;
      })
      .finally(() => {
        this.#handling.delete(task);
        this.#notify();
        this.#commitSoon(ignored);
      });
    this.#handling.add(task);
  }

  /** Waits for every record being handled (or given up), then commits the last positions. */
  async settle(): Promise<void> {
    while (this.#handling.size > 0) await Promise.allSettled([...this.#handling]);
    await this.flush();
  }

  #notify(): void {
    this.#wake();
    this.#changed = new Promise<void>((resolve) => (this.#wake = resolve));
  }

  /** The partition's progress (new when the member had none). */
  of(topic: string, partition: number): PartitionProgress {
    const id = partitionId(topic, partition);
    let entry = this.#partitions.get(id);
    if (!entry) this.#partitions.set(id, (entry = { topic, partition, p: new PartitionProgress() }));
    return entry.p;
  }

  /**
   * Whether `p` is still the partition's progress: false once the member lost the partition
   * (keepOnly), even when the partition was assigned to it again since (that is a new progress).
   */
  isCurrent(topic: string, partition: number, p: PartitionProgress): boolean {
    return this.#partitions.get(partitionId(topic, partition))?.p === p;
  }

  /** After a rejoin: forgets the partitions the member no longer owns (their records go, uncommitted, to the next owner). */
  keepOnly(owned: ReadonlySet<string>): void {
    for (const id of this.#partitions.keys()) if (!owned.has(id)) this.#partitions.delete(id);
  }

  /** Commits every owned position that moved; joins the commit running, which then runs once more. */
  commit(): Promise<void> {
    if (this.#committing) {
      this.#commitAgain = true;
      return this.#committing;
    }
    this.#committing = this.#commitLoop().finally(() => (this.#committing = undefined));
    return this.#committing;
  }

  /** Waits for the commit running, then commits what is left (stopping: the member's last positions). */
  async flush(): Promise<void> {
    clearTimeout(this.#commitTimer);
    this.#commitTimer = undefined;
    await this.#committing;
    await this.commit();
  }

  /**
   * The commit after a record ended: at once when the last one was sent at least
   * commitIntervalMs ago (IGNORED_COMMIT_INTERVAL_MS for an ignored record), else one timer for the
   * end of the interval (carrying every position moved until then). A crash loses at most that
   * interval of positions: those records are handled again, which every consumer of the log
   * tolerates (at-least-once).
   */
  #commitSoon(ignored: boolean): void {
    const commitInterval = this.#options.commitIntervalMs ?? 0;
    const interval = ignored ? Math.max(commitInterval, IGNORED_COMMIT_INTERVAL_MS) : commitInterval;
    const wait = this.#lastCommitAt + interval - Date.now();
    if (wait <= 0 || this.#stopping.signal.aborted) {
      void this.commit();
      return;
    }
    // A timer due later than this commit's is brought forward (a record handled after ignored ones).
    if (this.#commitTimer && this.#commitDueAt > Date.now() + wait) {
      clearTimeout(this.#commitTimer);
      this.#commitTimer = undefined;
    }
    if (!this.#commitTimer) this.#commitDueAt = Date.now() + wait;
    this.#commitTimer ??= setTimeout(() => {
      this.#commitTimer = undefined;
      void this.commit();
    }, wait);
    // A member that stops flushes its positions itself; the timer must not keep a process alive.
    this.#commitTimer.unref?.();
  }

  async #commitLoop(): Promise<void> {
    do {
      this.#commitAgain = false;
      const owned = this.#options.owned();
      const due = [...this.#partitions.entries()]
        .filter(([id]) => owned.has(id))
        .flatMap(([, { topic, partition, p }]) => {
          const position = p.toCommit();
          return position === undefined ? [] : [{ topic, partition, p, position }];
        });
      if (due.length === 0) continue;
      this.#lastCommitAt = Date.now();
      try {
        await this.#options.commit(due.map(({ topic, partition, position }) => ({ topic, partition, position })));
        for (const { p, position } of due) p.committed(position);
      } catch (e) {
        this.#options.logger.warn('kafka: could not commit positions', { error: String(e) });
      }
    } while (this.#commitAgain && !this.#stopping.signal.aborted);
  }
}
