import { backOff, consumeRetryDelayMs } from '../consume-retry.ts';
import type { ConsumeContext, ConsumeOptions, LogRecord } from '../ports/event-log.ts';
import type { Logger } from '../ports/logger.ts';
import type { GroupOffsets } from './file-event-log-groups.ts';
import type { StoredRecord, TopicFile } from './file-event-log-topic.ts';

const READ_BATCH = 256;
const noHeartbeat: ConsumeContext = { heartbeat: async () => {} };

/** One `consume` call: its capacity is shared by every topic it reads. */
export class Member {
  inFlight = 0;
  readonly cursors = new Set<GroupCursor>();
  readonly tasks = new Set<Promise<void>>();
  private readonly abort = new AbortController();

  readonly handle: ConsumeOptions['handle'];
  readonly concurrency: number;
  constructor(handle: ConsumeOptions['handle'], concurrency: number) {
    this.handle = handle;
    this.concurrency = concurrency;
  }

  get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get hasCapacity(): boolean {
    return !this.stopping && this.inFlight < this.concurrency;
  }

  /** Stops taking records, cuts back-off waits short, and waits for handlers in flight. */
  async stop(): Promise<void> {
    this.abort.abort();
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
    for (const cursor of this.cursors) cursor.removeMember(this);
  }
}

/**
 * The position of one group in one topic, shared by the group's members in this process
 * (competing consumers: each record goes to one member with free capacity).
 *
 * - Records are dispatched in offset order. A record whose key has a record in flight waits
 *   (head of line), so records of one key are handled one at a time, in order, even with
 *   several members and concurrency above 1.
 * - The committed position is the contiguous-completed watermark: the next offset after the
 *   longest run of handled records from the last commit.
 * - A rejected record stays in flight and is retried by the same member after a back-off,
 *   as a restarted consumer would get it again. If that member stops, the record goes back to
 *   the queue for the others (or for the next start, as it was never committed).
 */
export class GroupCursor {
  private committed: number;
  private nextRead: number;
  private readonly queue: StoredRecord[] = [];
  private readonly completed = new Set<number>();
  private readonly busyKeys = new Set<string>();
  private readonly members: Member[] = [];
  private turn = 0;
  private reading = false;
  private readFailures = 0;
  private readRetry: NodeJS.Timeout | undefined;
  private readonly onAppend = () => this.pump();

  private readonly topic: TopicFile;
  private readonly offsets: GroupOffsets;
  private readonly logger: Logger;
  constructor(topic: TopicFile, offsets: GroupOffsets, logger: Logger, fromBeginning: boolean) {
    this.topic = topic;
    this.offsets = offsets;
    this.logger = logger;
    const stored = offsets.get(topic.topic);
    let start = stored ?? (fromBeginning ? 0 : topic.count);
    if (start > topic.count) {
      logger.warn('event log: committed position is past the end of the topic; starting at the end', {
        group: offsets.group,
        topic: topic.topic,
        committed: start,
        end: topic.count,
      });
      start = topic.count;
    }
    if (stored !== start) offsets.commit(topic.topic, start);
    this.committed = start;
    this.nextRead = start;
    topic.on('append', this.onAppend);
  }

  addMember(member: Member): void {
    this.members.push(member);
    member.cursors.add(this);
    this.pump();
  }

  removeMember(member: Member): void {
    const i = this.members.indexOf(member);
    if (i !== -1) this.members.splice(i, 1);
    member.cursors.delete(this);
    this.pump();
  }

  close(): void {
    this.topic.off('append', this.onAppend);
    clearTimeout(this.readRetry);
  }

  /** Hands out every record it can; reads more from the file when the queue runs low. */
  pump(): void {
    for (let head = this.queue[0]; head && !this.busyKeys.has(head.key); head = this.queue[0]) {
      const member = this.pickMember();
      if (!member) break;
      this.queue.shift();
      this.start(member, head);
    }
    const moreOnDisk = this.nextRead < this.topic.count;
    if (moreOnDisk && this.members.length > 0 && this.queue.length < READ_BATCH && !this.reading && !this.readRetry) {
      void this.readMore();
    }
  }

  private pickMember(): Member | undefined {
    for (let i = 0; i < this.members.length; i++) {
      const member = this.members[(this.turn + i) % this.members.length] as Member;
      if (member.hasCapacity) {
        this.turn = (this.turn + i + 1) % this.members.length;
        return member;
      }
    }
    return undefined;
  }

  /** A record that cannot be read (damaged, unknown version) stops this cursor loudly: no skipping. */
  private async readMore(): Promise<void> {
    this.reading = true;
    try {
      const records = await this.topic.read(this.nextRead, this.topic.count, READ_BATCH);
      this.queue.push(...records);
      this.nextRead += records.length;
      this.readFailures = 0;
    } catch (e) {
      this.readFailures += 1;
      const delay = consumeRetryDelayMs(this.readFailures);
      this.logger.error('event log: cannot read the next record; retrying', {
        group: this.offsets.group,
        topic: this.topic.topic,
        offset: this.nextRead,
        retryInMs: delay,
        error: String(e),
      });
      this.readRetry = setTimeout(() => {
        this.readRetry = undefined;
        this.pump();
      }, delay);
    } finally {
      this.reading = false;
    }
    this.pump();
  }

  private start(member: Member, record: StoredRecord): void {
    member.inFlight += 1;
    this.busyKeys.add(record.key);
    const task = this.run(member, record).finally(() => {
      member.tasks.delete(task);
      member.inFlight -= 1;
      this.busyKeys.delete(record.key);
      for (const cursor of [this, ...member.cursors]) cursor.pump();
    });
    member.tasks.add(task);
  }

  private async run(member: Member, record: StoredRecord): Promise<void> {
    const logRecord: LogRecord = {
      topic: this.topic.topic,
      partition: 0,
      offset: String(record.offset),
      key: record.key,
      event: record.event,
      ...(record.writtenAt !== undefined ? { writtenAt: record.writtenAt } : {}),
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await member.handle(logRecord, noHeartbeat);
        this.complete(record.offset);
        return;
      } catch (e) {
        const delay = consumeRetryDelayMs(attempt);
        this.logger.warn('event log: handler rejected a record; it will be delivered again', {
          group: this.offsets.group,
          topic: this.topic.topic,
          offset: record.offset,
          requestId: record.key,
          attempt,
          retryInMs: member.stopping ? undefined : delay,
          error: String(e),
        });
        if (!(await backOff(delay, member.signal))) {
          this.giveBack(record);
          return;
        }
      }
    }
  }

  /** Puts a record its member could not finish back in the queue, in offset order. */
  private giveBack(record: StoredRecord): void {
    const at = this.queue.findIndex((r) => r.offset > record.offset);
    this.queue.splice(at === -1 ? this.queue.length : at, 0, record);
  }

  private complete(offset: number): void {
    this.completed.add(offset);
    while (this.completed.delete(this.committed)) this.committed += 1;
    this.offsets.commit(this.topic.topic, this.committed);
  }
}
