import { open, readdir, readFile, rename, mkdir, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Logger } from '../ports/logger.ts';
import { writeFileAtomic } from './file-event-log-groups.ts';

/**
 * The segments of one topic of the embedded log, and their index files.
 *
 * A topic is a directory `topics/<topic>.d/` of segment files `<first offset, 20 digits>.log`;
 * the last one takes appends and is rolled (a new one started) once it passes a size. So opening
 * the log never reads old records: each segment has an index `<first offset>.idx` (the byte
 * position of every record in it), written atomically (write, fsync, rename) when the segment is
 * sealed and, for the segment taking appends, as a checkpoint every few thousand records and at
 * close. Open reads the indexes, checks each against its segment (size, last indexed line intact
 * and at its offset) and scans only what lies after the checkpoint. A missing, damaged or
 * contradicted index is ignored and its segment scanned, so deleting `.idx` files is always safe.
 *
 * Index file, little-endian: "PRX1", CRC-32 of the rest (u32), first offset, record count,
 * bytes covered (f64 each), then one f64 position per record.
 */

const NEWLINE = 0x0a;
const SCAN_CHUNK = 1 << 20;
const INDEX_MAGIC = 'PRX1';
const INDEX_HEADER = 32;
const SEGMENT_NAME = /^(\d{20})\.log$/;
const LITTLE_ENDIAN = endianness() === 'LE';

export function segmentName(base: number, extension: '.log' | '.idx'): string {
  return `${String(base).padStart(20, '0')}${extension}`;
}

export interface SegmentIndex {
  positions: number[];
  /** Bytes of the segment the positions cover: the end of the last indexed line. */
  size: number;
}

export function encodeIndex(base: number, positions: ArrayLike<number>, count: number, size: number): Buffer {
  const buf = Buffer.alloc(INDEX_HEADER + count * 8);
  buf.write(INDEX_MAGIC, 0, 'latin1');
  buf.writeDoubleLE(base, 8);
  buf.writeDoubleLE(count, 16);
  buf.writeDoubleLE(size, 24);
  if (LITTLE_ENDIAN) Buffer.from(Float64Array.from({ length: count }, (_, i) => positions[i] as number).buffer).copy(buf, INDEX_HEADER);
  else for (let i = 0; i < count; i++) buf.writeDoubleLE(positions[i] as number, INDEX_HEADER + i * 8);
  buf.writeUInt32LE(crc32(buf.subarray(8)), 4);
  return buf;
}

/** The index in `buf` if it is whole, for segment `base`, and self-consistent; otherwise why not. */
export function decodeIndex(buf: Buffer, base: number): SegmentIndex | string {
  if (buf.length < INDEX_HEADER || buf.toString('latin1', 0, 4) !== INDEX_MAGIC) return 'not an index file';
  if (buf.readUInt32LE(4) !== crc32(buf.subarray(8))) return 'checksum mismatch';
  const count = buf.readDoubleLE(16);
  const size = buf.readDoubleLE(24);
  if (buf.readDoubleLE(8) !== base) return 'index of another segment';
  if (!Number.isSafeInteger(count) || buf.length !== INDEX_HEADER + count * 8) return 'wrong length';
  // One copy into an aligned array, then one pass (an index of 1M records is read in milliseconds).
  const values = new Float64Array(count);
  if (LITTLE_ENDIAN) Buffer.from(values.buffer).set(buf.subarray(INDEX_HEADER));
  else for (let i = 0; i < count; i++) values[i] = buf.readDoubleLE(INDEX_HEADER + i * 8);
  const positions = new Array<number>(count);
  let last = -1;
  for (let i = 0; i < count; i++) {
    const p = values[i] as number;
    if (!(p > last) || p >= size) return 'positions out of order';
    positions[i] = p;
    last = p;
  }
  if ((count === 0) !== (size === 0) || (count > 0 && positions[0] !== 0)) return 'positions out of range';
  return { positions, size };
}

export interface ScanResult {
  /** Start of every intact line from `from` on. */
  positions: number[];
  /** End of the last intact line. */
  end: number;
  /** Whether bytes after `end` are not intact lines (a torn or damaged tail). */
  torn: boolean;
}

/** Reads `fh` from `from` to its end and indexes intact lines, stopping at the first that is not. */
export async function scanLines(fh: FileHandle, from: number, fileSize: number, isIntact: (line: Buffer) => boolean): Promise<ScanResult> {
  const positions: number[] = [];
  let carry = Buffer.alloc(0);
  let carryStart = from;
  let readAt = from;
  while (readAt < fileSize) {
    const chunk = Buffer.allocUnsafe(Math.min(SCAN_CHUNK, fileSize - readAt));
    const { bytesRead } = await fh.read(chunk, 0, chunk.length, readAt);
    if (bytesRead === 0) break;
    readAt += bytesRead;
    const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
    let lineStart = 0;
    for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE, lineStart)) {
      if (!isIntact(data.subarray(lineStart, nl))) return { positions, end: carryStart + lineStart, torn: true };
      positions.push(carryStart + lineStart);
      lineStart = nl + 1;
    }
    carry = Buffer.from(data.subarray(lineStart));
    carryStart += lineStart;
  }
  return { positions, end: carryStart, torn: carry.length > 0 || carryStart < fileSize };
}

/** One segment file: its first offset, and the byte position of each of its durable records. */
export class Segment {
  readonly base: number;
  readonly path: string;
  readonly fh: FileHandle;
  readonly positions: number[];
  /** Bytes of durable records (the end of the last one). */
  size: number;
  constructor(base: number, path: string, fh: FileHandle, positions: number[], size: number) {
    this.size = size;
    this.base = base;
    this.path = path;
    this.fh = fh;
    this.positions = positions;
  }

  get count(): number {
    return this.positions.length;
  }

  /** The offset after its last record. */
  get end(): number {
    return this.base + this.positions.length;
  }

  get indexPath(): string {
    return join(this.path, '..', segmentName(this.base, '.idx'));
  }

  /** Writes its index atomically (a seal, or a checkpoint of the segment taking appends). */
  async writeIndex(): Promise<void> {
    await writeFileAtomic(this.indexPath, encodeIndex(this.base, this.positions, this.positions.length, this.size));
  }
}

/** Fsyncs a directory, so a rename or a new file in it survives a crash. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * A data directory written before segments holds `topics/<topic>.log`: it becomes the topic's
 * first segment (one rename; a crash before it leaves the old layout, after it the new one).
 */
export async function migrateSingleFile(topicDir: string, legacyPath: string): Promise<boolean> {
  let legacyExists = true;
  try {
    await (await open(legacyPath, 'r')).close();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    legacyExists = false;
  }
  if (!legacyExists) return false;
  await mkdir(topicDir, { recursive: true });
  if ((await listSegments(topicDir)).length > 0) {
    throw new Error(`event log: both ${legacyPath} and segments in ${topicDir}; move one of them away`);
  }
  await rename(legacyPath, join(topicDir, segmentName(0, '.log')));
  await syncDir(topicDir);
  await syncDir(join(topicDir, '..'));
  return true;
}

/** First offsets of the segments in `topicDir`, ascending. */
export async function listSegments(topicDir: string): Promise<number[]> {
  const bases: number[] = [];
  for (const name of await readdir(topicDir)) {
    const m = SEGMENT_NAME.exec(name);
    if (m) bases.push(Number(m[1]));
  }
  return bases.sort((a, b) => a - b);
}

/** The index file of segment `base`, or undefined (with a warning when there is one that does not fit). */
export async function readIndex(topicDir: string, base: number, logger: Logger, topic: string): Promise<SegmentIndex | undefined> {
  const path = join(topicDir, segmentName(base, '.idx'));
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const index = decodeIndex(buf, base);
  if (typeof index === 'string') {
    logger.warn('event log: ignoring a damaged segment index; scanning the segment', { topic, path, reason: index });
    return undefined;
  }
  return index;
}
