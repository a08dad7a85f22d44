import { EventEmitter } from 'node:events';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { logUnavailable, versionConflict } from '@pressroom/domain';
import type { LogEvent } from '@pressroom/schemas';
import { parseEvent } from '../event-codec.ts';
import { eventKey } from '../ports/event-log.ts';
import type { Logger } from '../ports/logger.ts';
import { listSegments, migrateSingleFile, readIndex, scanLines, Segment, segmentName, syncDir } from './file-event-log-segments.ts';

/**
 * One topic of the embedded log: append-only segment files (file-event-log-segments.ts), one JSON line per record,
 * `{"offset":"7","key":"<requestId>","event":{…},"crc":"1a2b3c4d"}`. The crc is the CRC-32 of
 * the same line without its `crc` member (`{"offset":…,"event":{…}}`), so a torn or damaged
 * tail is recognised without trusting anything after it.
 */

/** Length of `,"crc":"xxxxxxxx"}`, the fixed suffix of every line (before the newline). */
const CRC_SUFFIX_LENGTH = 18;
const READ_MAX_BYTES = 4 << 20;
/**
 * The lines of the latest appends kept in memory (at most this many records and bytes): every
 * consumer group reads a record right after its append, and then takes it from here, without a
 * read on the file system's thread pool (busy with fsyncs) or checking its crc and schema again.
 */
const RECENT_MAX_RECORDS = 256;
const RECENT_MAX_BYTES = 4 << 20;

export interface TopicOptions {
  /** A segment is sealed and a new one started once it holds this many bytes. */
  segmentBytes: number;
  /** The segment taking appends gets a checkpoint (its index) after this many records. */
  checkpointRecords: number;
}

export const DEFAULT_TOPIC_OPTIONS: TopicOptions = { segmentBytes: 64 << 20, checkpointRecords: 8192 };

export interface StoredRecord {
  offset: number;
  key: string;
  event: LogEvent;
  /** When the record was written (ms since the epoch); absent in lines written before it was recorded. */
  writtenAt?: number;
}

export function encodeLine(offset: number, event: LogEvent, writtenAt: number = Date.now()): Buffer {
  const body = JSON.stringify({ offset: String(offset), key: eventKey(event), writtenAt, event });
  const crc = crc32(body).toString(16).padStart(8, '0');
  return Buffer.from(`${body.slice(0, -1)},"crc":"${crc}"}\n`);
}

/** Whether `line` (without its newline) carries a crc that matches its content. */
export function lineIsIntact(line: Buffer): boolean {
  if (line.length <= CRC_SUFFIX_LENGTH) return false;
  const suffix = line.subarray(line.length - CRC_SUFFIX_LENGTH).toString('latin1');
  const match = /^,"crc":"([0-9a-f]{8})"\}$/.exec(suffix);
  if (!match) return false;
  const crc = crc32('}', crc32(line.subarray(0, line.length - CRC_SUFFIX_LENGTH)));
  return crc === Number.parseInt(match[1] as string, 16);
}

/** LogCorruptionError happens when an intact-looking line is not the record expected at its place. */
export class LogCorruptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogCorruptionError';
  }
}

/**
 * One record from its line (without the newline). `validate: false` only for a line this process
 * wrote from an event its append validated (the recent lines): the crc was not checked either.
 */
function decodeLine(line: Buffer, expectedOffset: number, path: string, validate = true): StoredRecord {
  const raw = JSON.parse(line.toString('utf8')) as { offset?: unknown; key?: unknown; writtenAt?: unknown; event?: unknown };
  if (raw.offset !== String(expectedOffset) || typeof raw.key !== 'string') {
    throw new LogCorruptionError(`${path}: expected offset ${expectedOffset}, found ${String(raw.offset)}`);
  }
  return {
    offset: expectedOffset,
    key: raw.key,
    event: validate ? parseEvent(raw.event) : (raw.event as LogEvent),
    ...(typeof raw.writtenAt === 'number' ? { writtenAt: raw.writtenAt } : {}),
  };
}

interface PendingAppend {
  events: LogEvent[];
  /** The version the events' key must be at (see AppendOptions.expectedVersion). */
  expectedVersion: number | undefined;
  /** With the offset of the first of `events` (the others follow it). */
  resolve(firstOffset: number): void;
  reject(error: unknown): void;
}

/**
 * Appends are grouped: while one write+fdatasync runs, later appends queue, and the next
 * write carries all of them. An append resolves after the fdatasync that covers it; only
 * then do its records become visible to readers and consumers ('append' event).
 */
export class TopicFile extends EventEmitter {
  private pending: PendingAppend[] = [];
  private writeActive = false;
  private writes: Promise<void> = Promise.resolve();
  private broken: unknown;
  /** The checkpoint being written, if any (one at a time, never blocking appends). */
  private checkpointing: Promise<void> | undefined;
  /** Records of the segment taking appends that its index on disk covers. */
  private checkpointed = 0;
  /**
   * Events per key, built on the first conditional append (one pass over the file) and kept
   * up to date by every write after it. Checked inside the write loop, which runs one batch
   * at a time, so a check and the write it allows cannot be separated by another append.
   */
  private streamVersions: Map<string, number> | undefined;
  /** The lines (newline included) of the latest records written, from offset `recentBase` on: see RECENT_MAX_RECORDS. */
  private recent: Buffer[] = [];
  private recentBase = 0;
  private recentBytes = 0;

  readonly topic: string;
  private readonly dir: string;
  /** Ascending, contiguous; the last one takes appends. */
  private readonly segments: Segment[];
  private readonly logger: Logger;
  private readonly options: TopicOptions;

  private constructor(topic: string, dir: string, segments: Segment[], logger: Logger, options: TopicOptions) {
    super();
    this.topic = topic;
    this.dir = dir;
    this.segments = segments;
    this.logger = logger;
    this.options = options;
    this.setMaxListeners(0);
    this.checkpointed = this.active.count;
  }

  /**
   * Opens (creating if needed) the topic's directory, moving a single-file topic of an older
   * data directory into it, and indexes its segments: from their index files where those hold
   * up, by scanning where not; a torn tail of the last segment is cut.
   */
  static async open(
    topic: string,
    dir: string,
    legacyPath: string,
    logger: Logger,
    options: TopicOptions = DEFAULT_TOPIC_OPTIONS,
  ): Promise<TopicFile> {
    if (await migrateSingleFile(dir, legacyPath))
      logger.info('event log: moved a single-file topic into its segment directory', { topic, dir });
    await mkdir(dir, { recursive: true });
    let bases = await listSegments(dir);
    if (bases.length === 0) {
      await (await open(join(dir, segmentName(0, '.log')), 'a')).close();
      await syncDir(dir);
      bases = [0];
    }
    const segments: Segment[] = [];
    try {
      for (const [i, base] of bases.entries()) {
        const sealed = i < bases.length - 1;
        const expected = segments.at(-1)?.end ?? base;
        if (base !== expected) throw new LogCorruptionError(`${dir}: segment ${segmentName(base, '.log')} follows offset ${expected}`);
        segments.push(await openSegment(topic, dir, base, sealed ? bases[i + 1] : undefined, logger));
      }
    } catch (e) {
      await Promise.allSettled(segments.map((s) => s.fh.close()));
      throw e;
    }
    return new TopicFile(topic, dir, segments, logger, options);
  }

  private get active(): Segment {
    return this.segments[this.segments.length - 1] as Segment;
  }

  get count(): number {
    return this.active.end;
  }

  /** The offset of the first record still held (0 until old segments are deleted). */
  get first(): number {
    return (this.segments[0] as Segment).base;
  }

  /** Resolves with the offset of the first event; the others follow it in order. */
  append(events: LogEvent[], expectedVersion?: number): Promise<number> {
    if (this.broken !== undefined) return Promise.reject(logUnavailable(this.broken));
    if (events.length === 0) return Promise.resolve(this.count);
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ events, expectedVersion, resolve, reject });
      if (!this.writeActive) {
        this.writeActive = true;
        this.writes = this.writeLoop();
      }
    });
  }

  /**
   * Runs while appends are queued. `writeActive` is cleared in the same tick as the last
   * check of the queue (no await in between), so an append never waits on a finished loop.
   */
  private async writeLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) await this.writeBatch(this.pending.splice(0));
    } finally {
      this.writeActive = false;
    }
  }

  /** Counts the events of every key once; later writes keep the counts. */
  private async loadStreamVersions(): Promise<Map<string, number>> {
    if (this.streamVersions) return this.streamVersions;
    const counts = new Map<string, number>();
    const end = this.count;
    for (let from = this.first; from < end;) {
      const records = await this.read(from, end);
      for (const r of records) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
      from += records.length;
    }
    this.streamVersions = counts;
    return counts;
  }

  /**
   * Refuses (CONFLICT) each conditional append whose key is not at its expected version,
   * counting the appends accepted before it in the same batch. Returns the accepted ones.
   */
  private async checkVersions(batch: PendingAppend[]): Promise<PendingAppend[]> {
    if (!this.streamVersions && batch.every((p) => p.expectedVersion === undefined)) return batch;
    let counts: Map<string, number>;
    try {
      counts = await this.loadStreamVersions();
    } catch (e) {
      for (const p of batch) p.reject(logUnavailable(e));
      return [];
    }
    const next = new Map<string, number>();
    const versionOf = (key: string) => next.get(key) ?? counts.get(key) ?? 0;
    const accepted: PendingAppend[] = [];
    for (const p of batch) {
      if (p.expectedVersion !== undefined) {
        const key = eventKey(p.events[0] as LogEvent);
        const actual = versionOf(key);
        if (actual !== p.expectedVersion) {
          p.reject(versionConflict(`Stream ${key} of ${this.topic}`, p.expectedVersion, actual));
          continue;
        }
      }
      for (const e of p.events) next.set(eventKey(e), versionOf(eventKey(e)) + 1);
      accepted.push(p);
    }
    return accepted;
  }

  private async writeBatch(all: PendingAppend[]): Promise<void> {
    const batch = await this.checkVersions(all);
    if (batch.length === 0) return;
    if (this.active.size >= this.options.segmentBytes && this.active.count > 0) {
      try {
        await this.roll();
      } catch (e) {
        this.logger.error('event log: cannot start a new segment', { topic: this.topic, error: String(e) });
        for (const p of batch) p.reject(logUnavailable(e));
        return;
      }
    }
    const segment = this.active;
    const lines: Buffer[] = [];
    const positions: number[] = [];
    let at = segment.size;
    const writtenAt = Date.now();
    const firstOffsets: number[] = [];
    for (const { events } of batch) {
      firstOffsets.push(segment.end + positions.length);
      for (const event of events) {
        const line = encodeLine(segment.end + positions.length, event, writtenAt);
        positions.push(at);
        lines.push(line);
        at += line.length;
      }
    }
    try {
      await this.writeAll(Buffer.concat(lines), segment.size);
      await segment.fh.datasync();
    } catch (e) {
      await this.undoWrite(e);
      for (const p of batch) p.reject(logUnavailable(e));
      return;
    }
    for (const position of positions) segment.positions.push(position);
    segment.size = at;
    this.remember(segment.end - lines.length, lines);
    if (this.streamVersions) {
      for (const { events } of batch)
        for (const e of events) this.streamVersions.set(eventKey(e), (this.streamVersions.get(eventKey(e)) ?? 0) + 1);
    }
    for (const [i, p] of batch.entries()) p.resolve(firstOffsets[i] as number);
    this.emit('append', this.count);
    if (segment.count - this.checkpointed >= this.options.checkpointRecords) this.checkpoint();
  }

  /** Keeps the lines just written (offsets from `first` on), dropping the oldest past the bounds. */
  private remember(first: number, lines: Buffer[]): void {
    if (this.recentBase + this.recent.length !== first) {
      this.recent = [];
      this.recentBytes = 0;
      this.recentBase = first;
    }
    for (const line of lines) {
      this.recent.push(line);
      this.recentBytes += line.length;
    }
    let drop = 0;
    while (drop < this.recent.length && (this.recent.length - drop > RECENT_MAX_RECORDS || this.recentBytes > RECENT_MAX_BYTES)) {
      this.recentBytes -= (this.recent[drop] as Buffer).length;
      drop++;
    }
    if (drop > 0) {
      this.recent = this.recent.slice(drop);
      this.recentBase += drop;
    }
  }

  /** Records from `from` below `to` (at most `maxRecords`) when the recent lines hold `from`; else undefined. */
  private readRecent(from: number, to: number, maxRecords: number): StoredRecord[] | undefined {
    if (from < this.recentBase || from >= this.recentBase + this.recent.length) return undefined;
    const end = Math.min(to, this.recentBase + this.recent.length, from + maxRecords);
    const records: StoredRecord[] = [];
    for (let offset = from; offset < end; offset++) {
      const line = this.recent[offset - this.recentBase] as Buffer;
      records.push(decodeLine(line.subarray(0, line.length - 1), offset, this.topic, false));
    }
    return records;
  }

  /**
   * Writes the index of the segment taking appends, in the background: after a crash, open
   * scans only the records after it. A failed checkpoint costs a longer scan, nothing else.
   */
  private checkpoint(): void {
    if (this.checkpointing) return;
    const segment = this.active;
    const count = segment.count;
    this.checkpointing = segment
      .writeIndex()
      .then(
        () => {
          if (this.active === segment) this.checkpointed = Math.max(this.checkpointed, count);
        },
        (e: unknown) => this.logger.warn('event log: cannot write a checkpoint', { topic: this.topic, error: String(e) }),
      )
      .finally(() => (this.checkpointing = undefined));
  }

  /** Seals the segment taking appends (its final index) and starts the next one. */
  private async roll(): Promise<void> {
    await this.checkpointing;
    const sealed = this.active;
    await sealed.writeIndex();
    const path = join(this.dir, segmentName(sealed.end, '.log'));
    await (await open(path, 'a')).close();
    const fh = await open(path, 'r+');
    try {
      await fh.truncate(0); // a file left by a roll that crashed before its first append
      await syncDir(this.dir);
    } catch (e) {
      await fh.close();
      throw e;
    }
    this.segments.push(new Segment(sealed.end, path, fh, [], 0));
    this.checkpointed = 0;
  }

  private async writeAll(buf: Buffer, position: number): Promise<void> {
    let done = 0;
    while (done < buf.length) {
      const { bytesWritten } = await this.active.fh.write(buf, done, buf.length - done, position + done);
      done += bytesWritten;
    }
  }

  /** A failed write may have left part of a line: cut it, or refuse every later append. */
  private async undoWrite(cause: unknown): Promise<void> {
    this.logger.error('event log: append failed', { topic: this.topic, error: String(cause) });
    try {
      await this.active.fh.truncate(this.active.size);
    } catch (e) {
      this.broken = e;
      this.logger.error('event log: cannot undo a failed append; topic refuses appends until restart', {
        topic: this.topic,
        error: String(e),
      });
    }
  }

  /** The segment holding offset `offset` (binary search over first offsets). */
  private segmentOf(offset: number): Segment {
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.segments[mid] as Segment).base <= offset) lo = mid;
      else hi = mid - 1;
    }
    return this.segments[lo] as Segment;
  }

  /**
   * Reads durable records from `from`, below `to`: at most `maxRecords`, about 4 MiB (but at
   * least one record) and within one segment, with one positional read; validates each event on
   * the way out. Callers loop until they have what they asked for.
   */
  async read(from: number, to: number, maxRecords = 256): Promise<StoredRecord[]> {
    if (from < this.first) throw new LogCorruptionError(`${this.dir}: offset ${from} is before the first held (${this.first})`);
    const recent = this.readRecent(from, to, maxRecords);
    if (recent) return recent;
    const segment = this.segmentOf(from);
    const local = from - segment.base;
    const positions = segment.positions;
    let end = Math.min(to, segment.end, from + maxRecords) - segment.base;
    if (local >= end) return [];
    const start = positions[local] as number;
    const positionOf = (i: number) => (i < positions.length ? (positions[i] as number) : segment.size);
    // Bounded by bytes too (large HTML bodies): at least one record, then up to READ_MAX_BYTES.
    while (end > local + 1 && positionOf(end) - start > READ_MAX_BYTES) end = local + Math.max(1, Math.floor((end - local) / 2));
    const stop = positionOf(end);
    const buf = Buffer.allocUnsafe(stop - start);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await segment.fh.read(buf, got, buf.length - got, start + got);
      if (bytesRead === 0) throw new LogCorruptionError(`${segment.path}: file shorter than its index`);
      got += bytesRead;
    }
    const records: StoredRecord[] = [];
    for (let i = local; i < end; i++) {
      const lineStart = (positions[i] as number) - start;
      const lineEnd = (i + 1 < end ? (positions[i + 1] as number) - start : buf.length) - 1;
      records.push(decodeLine(buf.subarray(lineStart, lineEnd), segment.base + i, segment.path));
    }
    return records;
  }

  /** Waits for appends in progress, writes a last checkpoint, then closes the files. */
  async close(): Promise<void> {
    while (this.writeActive) await this.writes;
    await this.checkpointing;
    if (this.active.count !== this.checkpointed && this.broken === undefined) {
      await this.active
        .writeIndex()
        .catch((e: unknown) => this.logger.warn('event log: cannot write a checkpoint', { topic: this.topic, error: String(e) }));
    }
    await Promise.all(this.segments.map((s) => s.fh.close()));
  }
}

/**
 * Opens one segment and finds its records: from its index if that holds up against the file
 * (size, last indexed line intact and at its offset), scanning the rest (a checkpoint covers
 * only part of the segment taking appends) or all of it (no index, or one that does not fit).
 * `next` is the first offset of the following segment for a sealed one: it must end exactly
 * there, whole, or the log is damaged in the middle and open fails rather than skip records.
 */
async function openSegment(topic: string, dir: string, base: number, next: number | undefined, logger: Logger): Promise<Segment> {
  const path = join(dir, segmentName(base, '.log'));
  const fh = await open(path, next === undefined ? 'r+' : 'r');
  try {
    const { size: fileSize } = await fh.stat();
    let index = await readIndex(dir, base, logger, topic);
    if (index && !(await indexFits(fh, base, index, fileSize, next !== undefined))) {
      logger.warn('event log: a segment index does not match its segment; scanning the segment', { topic, path });
      index = undefined;
    }
    const positions = index?.positions ?? [];
    const from = index?.size ?? 0;
    const segment = new Segment(base, path, fh, positions, from);
    if (from === fileSize && (next === undefined || segment.end === next)) return segment;
    const scan = await scanLines(fh, from, fileSize, lineIsIntact);
    for (const p of scan.positions) positions.push(p);
    segment.size = scan.end;
    if (next !== undefined) {
      if (scan.torn || segment.end !== next) {
        throw new LogCorruptionError(`${path}: holds ${segment.count} intact records, ${next - base} expected before the next segment`);
      }
    } else if (scan.torn) {
      // Everything from the first damaged line on was never acknowledged: an append resolves
      // only after the fdatasync covering it, and a later write starts after that.
      logger.warn('event log: cutting a torn tail', { topic, path, at: scan.end, droppedBytes: fileSize - scan.end });
      await fh.truncate(scan.end);
      await fh.datasync();
    }
    if (scan.positions.length > 0) await segment.writeIndex();
    return segment;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Whether an index agrees with its segment file: it may cover less of the last segment, never more. */
async function indexFits(
  fh: FileHandle,
  base: number,
  index: { positions: number[]; size: number },
  fileSize: number,
  sealed: boolean,
): Promise<boolean> {
  if (index.size > fileSize || (sealed && index.size !== fileSize)) return false;
  const count = index.positions.length;
  if (count === 0) return true;
  const lastStart = index.positions[count - 1] as number;
  const line = Buffer.allocUnsafe(index.size - lastStart);
  const { bytesRead } = await fh.read(line, 0, line.length, lastStart);
  if (bytesRead !== line.length || line[line.length - 1] !== 0x0a) return false;
  const body = line.subarray(0, line.length - 1);
  return lineIsIntact(body) && body.toString('latin1', 0, 40).startsWith(`{"offset":"${base + count - 1}"`);
}
