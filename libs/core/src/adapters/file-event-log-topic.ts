import { EventEmitter } from 'node:events';
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { logUnavailable, versionConflict } from '@pressroom/domain';
import type { LogEvent } from '@pressroom/schemas';
import { parseEvent } from '../event-codec.ts';
import { eventKey } from '../ports/event-log.ts';
import type { Logger } from '../ports/logger.ts';

/**
 * One topic of the embedded log: an append-only file, one JSON line per record,
 * `{"offset":"7","key":"<requestId>","event":{…},"crc":"1a2b3c4d"}`. The crc is the CRC-32 of
 * the same line without its `crc` member (`{"offset":…,"event":{…}}`), so a torn or damaged
 * tail is recognised without trusting anything after it.
 */

/** Length of `,"crc":"xxxxxxxx"}`, the fixed suffix of every line (before the newline). */
const CRC_SUFFIX_LENGTH = 18;
const NEWLINE = 0x0a;
const SCAN_CHUNK = 1 << 20;
const READ_MAX_BYTES = 4 << 20;

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

function decodeLine(line: Buffer, expectedOffset: number, path: string): StoredRecord {
  const raw = JSON.parse(line.toString('utf8')) as { offset?: unknown; key?: unknown; writtenAt?: unknown; event?: unknown };
  if (raw.offset !== String(expectedOffset) || typeof raw.key !== 'string') {
    throw new LogCorruptionError(`${path}: expected offset ${expectedOffset}, found ${String(raw.offset)}`);
  }
  return {
    offset: expectedOffset,
    key: raw.key,
    event: parseEvent(raw.event),
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
  /** Byte position of each record's line; its length is the number of durable records. */
  private readonly positions: number[] = [];
  private size = 0;
  private pending: PendingAppend[] = [];
  private writeActive = false;
  private writes: Promise<void> = Promise.resolve();
  private broken: unknown;
  /**
   * Events per key, built on the first conditional append (one pass over the file) and kept
   * up to date by every write after it. Checked inside the write loop, which runs one batch
   * at a time, so a check and the write it allows cannot be separated by another append.
   */
  private streamVersions: Map<string, number> | undefined;

  private constructor(
    readonly topic: string,
    private readonly path: string,
    private readonly fh: FileHandle,
    private readonly logger: Logger,
  ) {
    super();
    this.setMaxListeners(0);
  }

  /** Opens (creating if needed) the file, indexes its records and cuts a torn tail. */
  static async open(topic: string, path: string, logger: Logger): Promise<TopicFile> {
    await (await open(path, 'a')).close();
    const fh = await open(path, 'r+');
    const file = new TopicFile(topic, path, fh, logger);
    try {
      await file.scan();
    } catch (e) {
      await fh.close();
      throw e;
    }
    return file;
  }

  get count(): number {
    return this.positions.length;
  }

  private async scan(): Promise<void> {
    const { size: fileSize } = await this.fh.stat();
    let carry = Buffer.alloc(0);
    let carryStart = 0;
    let readAt = 0;
    while (readAt < fileSize) {
      const chunk = Buffer.allocUnsafe(Math.min(SCAN_CHUNK, fileSize - readAt));
      const { bytesRead } = await this.fh.read(chunk, 0, chunk.length, readAt);
      if (bytesRead === 0) break;
      readAt += bytesRead;
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      let lineStart = 0;
      for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE, lineStart)) {
        if (!lineIsIntact(data.subarray(lineStart, nl))) return this.cutTail(carryStart + lineStart, fileSize);
        this.positions.push(carryStart + lineStart);
        lineStart = nl + 1;
      }
      carry = Buffer.from(data.subarray(lineStart));
      carryStart += lineStart;
    }
    this.size = carryStart;
    if (carry.length > 0) await this.cutTail(carryStart, fileSize);
  }

  /**
   * Everything from the first damaged line on was never acknowledged: an append resolves only
   * after the fdatasync covering it, and a later write starts after that. So it is dropped.
   */
  private async cutTail(at: number, fileSize: number): Promise<void> {
    this.logger.warn('event log: cutting a torn tail', { topic: this.topic, path: this.path, at, droppedBytes: fileSize - at });
    await this.fh.truncate(at);
    await this.fh.datasync();
    this.size = at;
  }

  /** Resolves with the offset of the first event; the others follow it in order. */
  append(events: LogEvent[], expectedVersion?: number): Promise<number> {
    if (this.broken !== undefined) return Promise.reject(logUnavailable(this.broken));
    if (events.length === 0) return Promise.resolve(this.positions.length);
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
    const end = this.positions.length;
    for (let from = 0; from < end;) {
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
    const lines: Buffer[] = [];
    const positions: number[] = [];
    let at = this.size;
    const writtenAt = Date.now();
    const firstOffsets: number[] = [];
    for (const { events } of batch) {
      firstOffsets.push(this.positions.length + positions.length);
      for (const event of events) {
        const line = encodeLine(this.positions.length + positions.length, event, writtenAt);
        positions.push(at);
        lines.push(line);
        at += line.length;
      }
    }
    try {
      await this.writeAll(Buffer.concat(lines), this.size);
      await this.fh.datasync();
    } catch (e) {
      await this.undoWrite(e);
      for (const p of batch) p.reject(logUnavailable(e));
      return;
    }
    for (const position of positions) this.positions.push(position);
    this.size = at;
    if (this.streamVersions) {
      for (const { events } of batch)
        for (const e of events) this.streamVersions.set(eventKey(e), (this.streamVersions.get(eventKey(e)) ?? 0) + 1);
    }
    for (const [i, p] of batch.entries()) p.resolve(firstOffsets[i] as number);
    this.emit('append', this.positions.length);
  }

  private async writeAll(buf: Buffer, position: number): Promise<void> {
    let done = 0;
    while (done < buf.length) {
      const { bytesWritten } = await this.fh.write(buf, done, buf.length - done, position + done);
      done += bytesWritten;
    }
  }

  /** A failed write may have left part of a line: cut it, or refuse every later append. */
  private async undoWrite(cause: unknown): Promise<void> {
    this.logger.error('event log: append failed', { topic: this.topic, error: String(cause) });
    try {
      await this.fh.truncate(this.size);
    } catch (e) {
      this.broken = e;
      this.logger.error('event log: cannot undo a failed append; topic refuses appends until restart', {
        topic: this.topic,
        error: String(e),
      });
    }
  }

  /**
   * Reads durable records from `from`, below `to`: at most `maxRecords` and about 4 MiB (but at
   * least one record), with one positional read; validates each event on the way out.
   */
  async read(from: number, to: number, maxRecords = 256): Promise<StoredRecord[]> {
    let end = Math.min(to, this.positions.length, from + maxRecords);
    if (from >= end) return [];
    const start = this.positions[from] as number;
    const positionOf = (i: number) => (i < this.positions.length ? (this.positions[i] as number) : this.size);
    // Bounded by bytes too (large HTML bodies): at least one record, then up to READ_MAX_BYTES.
    while (end > from + 1 && positionOf(end) - start > READ_MAX_BYTES) end = from + Math.max(1, Math.floor((end - from) / 2));
    const stop = positionOf(end);
    const buf = Buffer.allocUnsafe(stop - start);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await this.fh.read(buf, got, buf.length - got, start + got);
      if (bytesRead === 0) throw new LogCorruptionError(`${this.path}: file shorter than its index`);
      got += bytesRead;
    }
    const records: StoredRecord[] = [];
    for (let i = from; i < end; i++) {
      const lineStart = (this.positions[i] as number) - start;
      const lineEnd = (i + 1 < end ? (this.positions[i + 1] as number) - start : buf.length) - 1;
      records.push(decodeLine(buf.subarray(lineStart, lineEnd), i, this.path));
    }
    return records;
  }

  /** Waits for appends in progress, then closes the file. */
  async close(): Promise<void> {
    while (this.writeActive) await this.writes;
    await this.fh.close();
  }
}
