import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/**
 * A snapshot file that is read where it lies instead of loaded: its items sorted by key, in
 * blocks, with an index of the blocks at the end. Opening it reads the first line (the header),
 * the last (the end line) and the index — a few hundred kB for a million items — so opening does
 * not grow with the number of items; a lookup reads one block (binary search in the index). Each
 * block has its CRC-32 in the index, checked when it is read.
 *
 * Layout (JSON lines, the item lines sorted by key, byte order of the key's UTF-16 units):
 *   {"format":…,"view":…,"positions":{…},"takenAt":…}
 *   <item line> × count
 *   {"index":[[firstKey,lastKey,offset,bytes,crc],…]}
 *   {"end":true,"count":N,"indexAt":<offset>,"indexBytes":<bytes>,"crc":"<CRC-32 of the index line>"}
 */

export const BLOCK_ITEMS = 64;

type BlockEntry = [first: string, last: string, offset: number, bytes: number, crc: string];

export class DamagedSnapshotError extends Error {}

const crcText = (crc: number) => crc.toString(16).padStart(8, '0');

/** Writes the file at `fh` (opened for writing, empty): `items` must come sorted by key, each key once. */
export async function writeIndexedSnapshot(
  fh: FileHandle,
  header: unknown,
  items: AsyncIterable<{ key: string; line: string }> | Iterable<{ key: string; line: string }>,
): Promise<number> {
  const index: BlockEntry[] = [];
  let offset = 0;
  const write = async (text: string) => {
    const buf = Buffer.from(text, 'utf8');
    await fh.write(buf, 0, buf.length, offset);
    offset += buf.length;
    return buf;
  };
  await write(`${JSON.stringify(header)}\n`);
  let count = 0;
  let block: string[] = [];
  let first = '';
  let last = '';
  const flush = async () => {
    if (!block.length) return;
    const at = offset;
    const buf = await write(`${block.join('\n')}\n`);
    index.push([first, last, at, buf.length, crcText(crc32(buf))]);
    block = [];
  };
  for await (const { key, line } of items) {
    if (!block.length) first = key;
    else if (key <= last) throw new Error(`snapshot items out of order: ${key} after ${last}`);
    last = key;
    block.push(line);
    count++;
    if (block.length >= BLOCK_ITEMS) await flush();
  }
  await flush();
  const indexAt = offset;
  const indexLine = `${JSON.stringify({ index })}\n`;
  const indexBuf = await write(indexLine);
  await write(`${JSON.stringify({ end: true, count, indexAt, indexBytes: indexBuf.length, crc: crcText(crc32(indexBuf)) })}\n`);
  return count;
}

export interface IndexedSnapshot {
  readonly header: Record<string, unknown>;
  readonly count: number;
  /** The item line of `key`, or undefined when the file has none. Throws DamagedSnapshotError when its block is damaged. */
  lookup(key: string): Promise<string | undefined>;
  /** Every item line, in key order, with its key (for merging into the next snapshot). */
  scan(): AsyncIterable<{ key: string; line: string }>;
  /** The item lines whose keys are in [from, to), in key order (reads only the blocks that may hold them). */
  range(from: string, to: string): AsyncIterable<{ key: string; line: string }>;
  close(): Promise<void>;
}

async function readAt(fh: FileHandle, offset: number, bytes: number): Promise<Buffer> {
  const buf = Buffer.alloc(bytes);
  let done = 0;
  while (done < bytes) {
    const { bytesRead } = await fh.read(buf, done, bytes - done, offset + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === bytes ? buf : buf.subarray(0, done);
}

/**
 * Opens a snapshot file: its header, end line and index (never its items). Rejects with
 * DamagedSnapshotError when one of those is missing or does not add up (a file cut short, another
 * format), with ENOENT when there is none.
 */
export async function openIndexedSnapshot(path: string, keyOf: (item: unknown) => string): Promise<IndexedSnapshot> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const head = await readAt(fh, 0, Math.min(size, 64 * 1024));
    const nl = head.indexOf(10);
    if (nl < 0) throw new DamagedSnapshotError('no header line');
    const header = JSON.parse(head.subarray(0, nl).toString('utf8')) as Record<string, unknown>;
    const tailBytes = Math.min(size, 4096);
    const tail = (await readAt(fh, size - tailBytes, tailBytes)).toString('utf8');
    const lines = tail.split('\n');
    if (lines.at(-1) !== '') throw new DamagedSnapshotError('no end line');
    let end: { end?: unknown; count?: unknown; indexAt?: unknown; indexBytes?: unknown; crc?: unknown };
    try {
      end = JSON.parse(lines.at(-2) ?? '') as typeof end;
    } catch {
      throw new DamagedSnapshotError('no end line');
    }
    const { count, indexAt, indexBytes } = end;
    if (
      end.end !== true ||
      !Number.isSafeInteger(count) ||
      !Number.isSafeInteger(indexAt) ||
      !Number.isSafeInteger(indexBytes) ||
      (indexAt as number) + (indexBytes as number) + Buffer.byteLength(`${lines.at(-2)}\n`) !== size
    )
      throw new DamagedSnapshotError('the end line does not match the file');
    const indexBuf = await readAt(fh, indexAt as number, indexBytes as number);
    if (crcText(crc32(indexBuf)) !== end.crc) throw new DamagedSnapshotError('damaged index (crc)');
    const { index } = JSON.parse(indexBuf.toString('utf8')) as { index: BlockEntry[] };
    if (!Array.isArray(index)) throw new DamagedSnapshotError('no index');

    const readBlock = async (b: BlockEntry): Promise<string[]> => {
      const buf = await readAt(fh, b[2], b[3]);
      if (buf.length !== b[3] || crcText(crc32(buf)) !== b[4]) throw new DamagedSnapshotError(`damaged block at ${b[2]} (crc)`);
      return buf.toString('utf8').split('\n').slice(0, -1);
    };

    return {
      header,
      count: count as number,
      async lookup(key) {
        // The last block whose first key is at most `key`.
        let lo = 0;
        let hi = index.length - 1;
        let at = -1;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          if ((index[mid] as BlockEntry)[0] <= key) {
            at = mid;
            lo = mid + 1;
          } else hi = mid - 1;
        }
        const block = index[at];
        if (!block || block[1] < key) return undefined;
        const needle = JSON.stringify(key);
        for (const line of await readBlock(block)) {
          if (line.includes(needle) && keyOf(JSON.parse(line)) === key) return line;
        }
        return undefined;
      },
      async *scan() {
        for (const block of index) {
          for (const line of await readBlock(block)) yield { key: keyOf(JSON.parse(line)), line };
        }
      },
      async *range(from, to) {
        for (const block of index) {
          if (block[1] < from) continue;
          if (block[0] >= to) break;
          for (const line of await readBlock(block)) {
            const key = keyOf(JSON.parse(line));
            if (key >= from && key < to) yield { key, line };
          }
        }
      },
      close: () => fh.close(),
    };
  } catch (e) {
    await fh.close();
    if (e instanceof SyntaxError) throw new DamagedSnapshotError(`unreadable: ${e.message}`);
    throw e;
  }
}
