import { access, mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { logUnavailable } from '@pressroom/domain';
import type { LogEvent } from '@pressroom/schemas';
import { parseEvent } from '../event-codec.ts';
import {
  eventKey,
  type AppendOptions,
  type ConsumeOptions,
  type ConsumerLag,
  type EventLog,
  type LogPosition,
  type LogRecord,
  type PartitionEnd,
  type ReadAllOptions,
  type Subscription,
} from '../ports/event-log.ts';
import { silentLogger, type Logger } from '../ports/logger.ts';
import { GroupCursor, Member } from './file-event-log-cursor.ts';
import { fileNameFor, GroupOffsets } from './file-event-log-groups.ts';
import { DEFAULT_TOPIC_OPTIONS, TopicFile, type StoredRecord, type TopicOptions } from './file-event-log-topic.ts';

export interface FileEventLogOptions {
  /** Holds `topics/<topic>.d/` (segments), `groups/<group>.json` and `LOCK`. Created if missing. */
  dir: string;
  logger?: Logger;
  /** Segment size and checkpoint interval (tests make them small). */
  topicOptions?: Partial<TopicOptions>;
}

/**
 * The first offset of `file` whose record was written at or after `sinceMs`, by bisection over
 * the records' `writtenAt` (one record read per step: ~17 for 100,000 records). A record without
 * one (written before it was recorded) counts as older. `writtenAt` follows the process's clock,
 * so around a clock stepped back the bound can be off by the records written meanwhile: callers
 * leave a margin (see EventLog.readAll).
 */
async function firstWrittenSince(file: TopicFile, sinceMs: number): Promise<number> {
  let lo = file.first;
  let hi = file.count; // the answer lies in [lo, hi]; hi: none written since
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const [record] = await file.read(mid, mid + 1, 1);
    if ((record?.writtenAt ?? 0) >= sinceMs) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** LogLockedError happens when another live process has the same log directory open. */
export class LogLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(`event log at ${dir} is open in process ${pid}; one process owns an embedded log`);
    this.name = 'LogLockedError';
  }
}

/**
 * The embedded event log (one process, no servers): one directory of append-only segment files
 * per topic (see file-event-log-segments.ts: opening reads indexes, not history), one
 * partition (0) per topic, per-group positions in small JSON files.
 *
 * - `append` validates every event first (an invalid one refuses the whole call), then
 *   resolves after the fdatasync that covers it; concurrent appends share one write+sync.
 * - Consumers of one group in this process share the work record by record; records of one
 *   key are handled one at a time in append order; the committed position is the
 *   contiguous-completed watermark; a rejected record is retried after a back-off.
 * - Records appended but never committed by a group are delivered again after a restart.
 */
/** The embedded log, with what view snapshots need: positions, and reading from them. */
export interface FileEventLog extends EventLog {
  /** The records each topic holds now (the next offset to be written). */
  ends(topics: string[]): Promise<Record<string, number>>;
  /** The next offset `group` will be given in `topic` (everything below was handled and committed). */
  committed(group: string, topic: string): Promise<number>;
  /** As `readAll`, but each topic from `from[topic]` (default 0) on. */
  readFrom(topics: string[], from: Record<string, number>, visit: (record: LogRecord) => Promise<void> | void): Promise<number>;
}

export async function createFileEventLog(opts: FileEventLogOptions): Promise<FileEventLog> {
  const dir = resolve(opts.dir);
  const logger = opts.logger ?? silentLogger;
  await mkdir(join(dir, 'topics'), { recursive: true });
  await mkdir(join(dir, 'groups'), { recursive: true });
  await acquireLock(dir, logger);

  const topics = new Map<string, Promise<TopicFile>>();
  const groups = new Map<string, Promise<GroupOffsets>>();
  const cursors = new Map<string, GroupCursor>();
  const members = new Set<Member>();
  let closed = false;

  const topicOptions: TopicOptions = { ...DEFAULT_TOPIC_OPTIONS, ...opts.topicOptions };
  const topicDir = (topic: string) => join(dir, 'topics', fileNameFor(topic, '.d'));
  /** Where a data directory written before segments keeps the topic (moved into topicDir on open). */
  const legacyPath = (topic: string) => join(dir, 'topics', fileNameFor(topic, '.log'));

  function openTopic(topic: string): Promise<TopicFile> {
    let file = topics.get(topic);
    if (!file) {
      file = TopicFile.open(topic, topicDir(topic), legacyPath(topic), logger, topicOptions);
      topics.set(topic, file);
      file.catch(() => topics.delete(topic));
    }
    return file;
  }

  /** For readers: a topic nobody appended to has no file and no records. */
  async function existingTopic(topic: string): Promise<TopicFile | undefined> {
    if (topics.has(topic)) return openTopic(topic);
    for (const path of [topicDir(topic), legacyPath(topic)]) {
      try {
        await access(path);
        return await openTopic(topic);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    return undefined;
  }

  // Index every topic now (from the segment indexes: no history is read): a torn tail is cut,
  // and a damaged segment fails the start, not a consumer.
  try {
    for (const name of await readdir(join(dir, 'topics'))) {
      const extension = ['.d', '.log'].find((x) => name.endsWith(x));
      if (extension) await openTopic(decodeURIComponent(name.slice(0, -extension.length)));
    }
  } catch (e) {
    await closeAll(topics.values());
    await releaseLock(dir);
    throw e;
  }

  function openGroup(group: string): Promise<GroupOffsets> {
    let offsets = groups.get(group);
    if (!offsets) {
      offsets = GroupOffsets.load(join(dir, 'groups'), group, logger);
      groups.set(group, offsets);
      offsets.catch(() => groups.delete(group));
    }
    return offsets;
  }

  function assertOpen(): void {
    if (closed) throw logUnavailable(new Error(`event log at ${dir} is closed`));
  }

  async function readFrom(
    names: string[],
    from: Record<string, number>,
    visit: (record: LogRecord) => Promise<void> | void,
  ): Promise<number> {
    assertOpen();
    const files = await Promise.all(names.map((t) => existingTopic(t)));
    const ends = files.map((f) => f?.count ?? 0);
    let visited = 0;
    for (const [i, file] of files.entries()) {
      if (!file) continue;
      const end = ends[i] as number;
      for (let at = Math.max(file.first, from[file.topic] ?? 0); at < end;) {
        const records = await file.read(at, end);
        for (const r of records) {
          await visit(toRecord(file.topic, r));
        }
        at += records.length;
        visited += records.length;
      }
    }
    return visited;
  }

  return {
    async append(topic: string, events: LogEvent[], options: AppendOptions = {}): Promise<LogPosition[]> {
      const valid = events.map((e) => parseEvent(e));
      if (options.expectedVersion !== undefined) assertOneKey(valid);
      assertOpen();
      let file: TopicFile;
      try {
        file = await openTopic(topic);
      } catch (e) {
        throw logUnavailable(e);
      }
      const first = await file.append(valid, options.expectedVersion);
      return valid.map((_, i) => ({ partition: 0, offset: String(first + i) }));
    },

    async endOffsets(topic: string): Promise<PartitionEnd[]> {
      assertOpen();
      const file = await existingTopic(topic);
      return [{ partition: 0, end: String(file?.count ?? 0) }];
    },

    async readPartition(topic, range, visit): Promise<void> {
      assertOpen();
      const file = await existingTopic(topic);
      if (!file || range.partition !== 0) return;
      const end = Math.min(file.count, Number(range.through) + 1);
      for (let from = Math.max(file.first, Number(range.from)); from < end;) {
        const records = await file.read(from, end);
        for (const r of records) await visit(toRecord(file.topic, r));
        from += records.length;
      }
    },

    async lag(): Promise<ConsumerLag[]> {
      const out: ConsumerLag[] = [];
      for (const key of cursors.keys()) {
        const [group, topic] = JSON.parse(key) as [string, string];
        const [file, offsets] = await Promise.all([openTopic(topic), openGroup(group)]);
        out.push({ group, topic, partition: 0, lag: Math.max(0, file.count - (offsets.get(topic) ?? 0)) });
      }
      return out;
    },

    async groupLag(group: string, topics: string[]): Promise<number> {
      const offsets = await openGroup(group);
      let lag = 0;
      for (const topic of topics) lag += Math.max(0, (await openTopic(topic)).count - (offsets.get(topic) ?? 0));
      return lag;
    },

    async consume(options: ConsumeOptions): Promise<Subscription> {
      assertOpen();
      const member = new Member((record, ctx) => options.handle(record, ctx), Math.max(1, options.concurrency ?? 1));
      const offsets = await openGroup(options.group);
      for (const topic of new Set(options.topics)) {
        const file = await openTopic(topic);
        const key = JSON.stringify([options.group, topic]);
        let cursor = cursors.get(key);
        if (!cursor) {
          cursor = new GroupCursor(file, offsets, logger, options.fromBeginning ?? true);
          cursors.set(key, cursor);
        }
        cursor.addMember(member);
      }
      members.add(member);
      let stopped: Promise<void> | undefined;
      return {
        stop() {
          stopped ??= (async () => {
            await member.stop();
            members.delete(member);
            await offsets.flush();
          })();
          return stopped;
        },
      };
    },

    async readAll(names: string[], visit: (record: LogRecord) => Promise<void> | void, opts: ReadAllOptions = {}): Promise<number> {
      const { sinceMs } = opts;
      if (sinceMs === undefined) return readFrom(names, {}, visit);
      assertOpen();
      const from: Record<string, number> = {};
      for (const name of names) {
        const file = await existingTopic(name);
        if (file) from[name] = await firstWrittenSince(file, sinceMs);
      }
      return readFrom(names, from, visit);
    },

    readFrom,

    async ends(names: string[]): Promise<Record<string, number>> {
      assertOpen();
      const files = await Promise.all(names.map((t) => existingTopic(t)));
      return Object.fromEntries(names.map((t, i) => [t, files[i]?.count ?? 0]));
    },

    async committed(group: string, topic: string): Promise<number> {
      assertOpen();
      return (await openGroup(group)).get(topic) ?? 0;
    },

    async ping(): Promise<void> {
      assertOpen();
      try {
        await access(join(dir, 'topics'));
      } catch (e) {
        throw logUnavailable(e);
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([...members].map((m) => m.stop()));
      for (const cursor of cursors.values()) cursor.close();
      for (const offsets of await opened(groups.values())) await offsets.flush();
      await closeAll(topics.values());
      await releaseLock(dir);
    },
  };
}

function toRecord(topic: string, r: StoredRecord): LogRecord {
  return {
    topic,
    partition: 0,
    offset: String(r.offset),
    key: r.key,
    event: r.event,
    ...(r.writtenAt !== undefined ? { writtenAt: r.writtenAt } : {}),
  };
}

/** A conditional append checks one stream: every event must carry the same key. */
export function assertOneKey(events: LogEvent[]): void {
  const keys = new Set(events.map((e) => eventKey(e)));
  if (keys.size > 1) throw new Error(`an append with an expected version must hold one key's events, got ${keys.size} keys`);
}

/** What opened successfully: a failed open was already reported to its caller. */
async function opened<T>(pending: Iterable<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled([...pending]);
  return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
}

async function closeAll(files: Iterable<Promise<TopicFile>>): Promise<void> {
  await Promise.all((await opened(files)).map((f) => f.close()));
}

/** Directories this process has open, with how many instances hold each (tests reopen). */
const heldLocks = new Map<string, number>();

async function acquireLock(dir: string, logger: Logger): Promise<void> {
  const held = heldLocks.get(dir);
  if (held) {
    heldLocks.set(dir, held + 1);
    return;
  }
  const path = join(dir, 'LOCK');
  for (let attempt = 0; ; attempt++) {
    try {
      const fh = await open(path, 'wx');
      const start = await processStart(process.pid);
      await fh.writeFile(start ? `${process.pid} ${start}` : String(process.pid));
      await fh.close();
      heldLocks.set(dir, 1);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
    }
    const [pidText = '', start] = (await readFile(path, 'utf8').catch(() => '')).trim().split(' ');
    const pid = Number(pidText);
    if (pid > 0 && pid !== process.pid && (await lockHolderAlive(pid, start))) throw new LogLockedError(dir, pid);
    logger.warn('event log: removing a stale lock', { dir, pid });
    await rm(path, { force: true });
  }
}

async function releaseLock(dir: string): Promise<void> {
  const held = heldLocks.get(dir) ?? 0;
  if (held > 1) {
    heldLocks.set(dir, held - 1);
    return;
  }
  heldLocks.delete(dir);
  await rm(join(dir, 'LOCK'), { force: true });
}

/**
 * Whether the process that wrote the lock still runs. The lock holds its pid and, where /proc
 * tells it, its start time: after a crash (SIGKILL of the whole service) the pid may belong to
 * another process by the time the service restarts (pids wrap, fast in a busy container), or to
 * the zombie of the dead one; neither holds the log.
 */
async function lockHolderAlive(pid: number, start: string | undefined): Promise<boolean> {
  if (!processIsAlive(pid)) return false;
  const now = await processStart(pid);
  if (now === 'zombie') return false;
  return start === undefined || now === undefined || now === start;
}

/** The start time of a process (clock ticks since boot, from /proc), 'zombie' for one that has ended; undefined without /proc. */
async function processStart(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return 'zombie';
  return fields[19]; // field 22 of stat, starttime
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
