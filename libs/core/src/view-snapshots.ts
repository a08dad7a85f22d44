import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { crc32 } from 'node:zlib';
import { Compile } from 'typebox/compile';
import { StatusViewEntry } from '@pressroom/schemas';
import type { FileEventLog } from './adapters/file-event-log.ts';
import type { MemoryStatusView } from './adapters/memory-status-view.ts';
import type { MemoryTemplateView, TemplateViewItem } from './adapters/memory-template-view.ts';
import type { LogRecord, TopicNames } from './ports/event-log.ts';
import { DamagedSnapshotError, openIndexedSnapshot, writeIndexedSnapshot, type IndexedSnapshot } from './indexed-snapshot-file.ts';
import { renderTopics } from './self-rebuilding-views.ts';
import type { KeyedLogFacts } from './idempotency-log-facts.ts';
import type { DeliveryDocumentItem, SnapshottedDeliveries } from './snapshotted-deliveries.ts';
import type { KeyedLogFact } from './self-rebuilding-idempotency-keys.ts';
import { silentLogger, type Logger } from './ports/logger.ts';

/**
 * Snapshots of the embedded profile's in-memory views, so a start replays only the log after
 * the latest snapshot instead of the whole history.
 *
 * The log stays the record: a snapshot is a cache of "the view after every record below these
 * positions". A missing, damaged, foreign (positions past the log's end) or older-format
 * snapshot is ignored with a warning and the view is replayed from the beginning, so deleting
 * the snapshot directory is always safe.
 *
 * File (`<dir>/<view>.snapshot`), JSON lines, written to a temporary file, fsynced, renamed:
 *   {"format":"status-view/1","view":"status","positions":{"<topic>":1234},"takenAt":"…"}
 *   <one line per item>
 *   {"end":true,"count":N,"crc":"<CRC-32 of the item lines>"}
 * A file without its end line (a crash mid-write cannot leave one: the rename comes after the
 * fsync; a copy cut short can) or with another count or crc is ignored.
 *
 * An indexed view (the status view) is snapshotted incrementally: a base (`<view>.snapshot`,
 * every item) and a delta (`<view>.delta.snapshot`, the same indexed format, only the items
 * changed since the base, its header naming the base's `id`). A save rewrites only the delta
 * while it stays small beside the base (DELTA_SHARE), and merges both into a new base otherwise
 * (then deletes the delta). A start opens both and reads an item from the delta first. A delta
 * of another base (a crash between the base's rename and the delta's removal), damaged, or behind
 * its base is ignored: the start replays from the base's positions instead.
 */

export interface SnapshotView<T> {
  /** The view's name, and its file's. */
  name: string;
  /**
   * The format of the items: bump it whenever the shape of an item changes, so a snapshot
   * written by an older version is ignored (and rebuilt) rather than misread.
   */
  format: string;
  /**
   * The topics the view is built from, and the consumer group that keeps it up to date. A view no
   * projector keeps (`group` absent: the Idempotency-Keys' log facts) is kept by the snapshotter
   * itself: each save first applies the log written since the last one (or since `restore`).
   */
  topics: string[];
  group?: string;
  /**
   * Restored on first use after the start rather than before serving (the Idempotency-Keys, the
   * webhook deliveries): until its restore is done the view is empty or half built, so a save
   * before or during it is skipped (the next start restores from the older snapshot, or the log),
   * and a shutdown does not wait for a long replay to end.
   */
  lazy?: boolean;
  /** Every item the view holds in memory (with `indexed`: those not only in the attached snapshot). */
  exportState(): T[];
  importState(items: T[]): void;
  /**
   * A view too large to load at start (the status view: one item per render ever made): its
   * snapshot is written sorted, with an index (indexed-snapshot-file.ts), and attached instead of
   * loaded — the view reads an item it does not hold from the file, on first use. Opening costs
   * the same whatever the number of items.
   */
  indexed?: {
    keyOf(item: T): string;
    /**
     * Reads through to `base` what the view does not hold (undefined: nothing attached). With
     * `readsWaitFor`, the view's reads (not its applies) wait for it first: the view is being
     * replayed and would answer from half of it.
     */
    attach(
      base: ((key: string) => Promise<T | undefined>) | undefined,
      readsWaitFor?: Promise<unknown>,
      file?: { range(from: string, to: string): AsyncIterable<T>; note: unknown },
    ): void;
    /**
     * What a snapshot of the view holds besides its items, written in its header and handed back
     * to `attach` (`file.note`) by the start that loads it (the deliveries: the requests not settled).
     */
    note?(): unknown;
    /**
     * With it, every save attaches the snapshot it wrote (base and delta, as a start would) and
     * then calls it with the items it exported: the view may drop those it no longer needs in
     * memory (the status view: the finished entries no event changed since), so its memory holds
     * what changed since the last snapshot rather than everything since the start.
     */
    forgetSaved?(saved: T[]): void;
  };
  isItem(value: unknown): value is T;
  /** Applies one record of the log (what the view's projector does with it). */
  apply(record: LogRecord): Promise<void>;
  clear(): Promise<void>;
  markBuilt(): Promise<void>;
}

export interface RestoreResult {
  /** Whether a valid snapshot was loaded. */
  fromSnapshot: boolean;
  /** The records of the log replayed after it (all of them without a snapshot). */
  replayed: number;
}

export interface ViewSnapshotter {
  readonly name: string;
  /**
   * Loads the latest valid snapshot into the view, then replays the log after it, and marks the
   * view built. `fromScratch`: ignore the snapshot, replay the whole log (a rebuild).
   */
  restore(opts?: { fromScratch?: boolean; onRecord?: () => void }): Promise<RestoreResult>;
  /**
   * Writes a snapshot of the view as it stands (no-op when the log has not moved since the last
   * one). `whole`: a new base even when a delta would do (a rebuild, a benchmark).
   */
  save(opts?: { whole?: boolean }): Promise<boolean>;
  /** What the last `restore` did (for the tests and the start-up log line). */
  lastRestore(): RestoreResult | undefined;
  /** Closes the snapshot file the view reads through to (after the last save). */
  close(): Promise<void>;
}

interface Header {
  format: string;
  view: string;
  positions: Record<string, number>;
  takenAt: string;
  /** A base of an indexed view: its identity, which its delta names. */
  id?: string;
  /** A delta: the `id` of the base it applies to. */
  base?: string;
  /** An indexed view's own note (`indexed.note`). */
  note?: unknown;
}

/** A delta is rewritten instead of the base while it holds at most this share of the base's items (and at least DELTA_MIN). */
const DELTA_SHARE = 0.25;
const DELTA_MIN = 10_000;

export function createViewSnapshotter<T>(
  view: SnapshotView<T>,
  deps: { dir: string; log: FileEventLog; logger?: Logger; clock?: { now(): Date } },
): ViewSnapshotter {
  const logger = deps.logger ?? silentLogger;
  const path = join(deps.dir, `${encodeURIComponent(view.name)}.snapshot`);
  const deltaPath = join(deps.dir, `${encodeURIComponent(view.name)}.delta.snapshot`);
  const indexed = view.indexed;
  /** The log positions every record below which the view holds since `restore` (its replay's ends). */
  let restoredTo: Record<string, number> = {};
  let savedAt: Record<string, number> | undefined;
  let restored: RestoreResult | undefined;
  let saving: Promise<boolean> | undefined;
  /** The indexed snapshot the view reads through to (indexed views only), and the delta over it read first. */
  let base: IndexedSnapshot | undefined;
  let delta: IndexedSnapshot | undefined;
  /** The base on disk (its id and item count), which the next delta applies to. */
  let diskBase: { id: string; count: number } | undefined;
  let recovering: Promise<void> | undefined;
  /** Snapshot files replaced by newer ones (attachSaved) that a read still uses, closed when it ends. */
  const retired = new Set<IndexedSnapshot>();
  /** Reads under way per snapshot file (readThrough). */
  const reading = new Map<IndexedSnapshot, number>();
  let restoring: Promise<unknown> | undefined;
  let restoreRunning = false;

  async function positionsNow(): Promise<Record<string, number>> {
    const group = view.group;
    if (group === undefined) {
      // No projector keeps the view: it holds what restore replayed and what the last save
      // applied; apply the log written since, so the snapshot is as recent as the log.
      const { ends } = await replay(restoredTo);
      restoredTo = ends;
      return Object.fromEntries(view.topics.map((topic) => [topic, ends[topic] ?? 0]));
    }
    // The view holds every record below the replay's ends (restore) and every record below
    // the group's committed position (its projector applied them before committing): both
    // are prefixes of the log, so it holds the longer one.
    const out: Record<string, number> = {};
    for (const topic of view.topics) {
      out[topic] = Math.max(restoredTo[topic] ?? 0, await deps.log.committed(group, topic));
    }
    return out;
  }

  /** Replays the log from `from` (all of it when empty) into the view, up to the ends as they are now. */
  async function replay(from: Record<string, number>, onRecord?: () => void): Promise<{ replayed: number; ends: Record<string, number> }> {
    const ends = await deps.log.ends(view.topics);
    let replayed = 0;
    await deps.log.readFrom(view.topics, from, async (record) => {
      // Only up to the ends read above: what comes later is the projector's.
      if (Number(record.offset) >= (ends[record.topic] ?? 0)) return;
      replayed++;
      onRecord?.();
      await view.apply(record);
    });
    return { replayed, ends };
  }

  /**
   * A block of the attached snapshot turned out damaged (its CRC is checked when it is read):
   * the snapshot is detached and the whole log replayed into the view (applies are idempotent
   * and forward-only: what the view holds already stays right). Whoever asked waits, so no
   * answer comes from a damaged file.
   */
  function recover(err: unknown): Promise<void> {
    recovering ??= (async () => {
      logger.warn('view snapshot damaged; the view is replayed from the log', { view: view.name, path, reason: String(err) });
      const damaged = [base, delta];
      base = undefined;
      delta = undefined;
      diskBase = undefined;
      let replayed = () => {};
      indexed?.attach(undefined, new Promise<void>((resolve) => (replayed = resolve)));
      try {
        const { ends } = await replay({});
        restoredTo = ends;
        savedAt = undefined;
      } finally {
        replayed();
        for (const file of damaged) await file?.close().catch(() => undefined);
      }
    })().finally(() => (recovering = undefined));
    return recovering;
  }

  /** The items in key order, for an indexed snapshot: the file's (when given), overridden by those in memory. */
  async function* merged(
    items: T[],
    file: AsyncIterable<{ key: string; line: string }> | undefined,
  ): AsyncIterable<{ key: string; line: string }> {
    const keyOf = (item: T) => (indexed as NonNullable<typeof indexed>).keyOf(item);
    const mine = items.map((item) => ({ key: keyOf(item), item })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let i = 0;
    if (file) {
      for await (const old of file) {
        while (i < mine.length && (mine[i] as { key: string }).key < old.key) {
          const m = mine[i++] as { key: string; item: T };
          yield { key: m.key, line: JSON.stringify(m.item) };
        }
        if (i < mine.length && (mine[i] as { key: string }).key === old.key) continue; // the view's is newer
        yield old;
      }
    }
    for (; i < mine.length; i++) {
      const m = mine[i] as { key: string; item: T };
      yield { key: m.key, line: JSON.stringify(m.item) };
    }
  }

  async function writeLines(fh: FileHandle, header: Header, items: T[]): Promise<number> {
    let crc = 0;
    let chunk: string[] = [JSON.stringify(header)];
    let chunkBytes = 0;
    const flush = async () => {
      if (chunk.length) await fh.write(`${chunk.join('\n')}\n`);
      chunk = [];
      chunkBytes = 0;
    };
    for (const item of items) {
      const line = JSON.stringify(item);
      crc = crc32(`${line}\n`, crc);
      chunk.push(line);
      chunkBytes += line.length;
      if (chunkBytes > 1 << 20) await flush();
    }
    chunk.push(JSON.stringify({ end: true, count: items.length, crc: crcText(crc) }));
    await flush();
    return items.length;
  }

  /** Two sorted scans as one, the first's line winning on a key both hold. */
  async function* overlay(
    top: AsyncIterable<{ key: string; line: string }>,
    under: AsyncIterable<{ key: string; line: string }>,
  ): AsyncIterable<{ key: string; line: string }> {
    const a = top[Symbol.asyncIterator]();
    const b = under[Symbol.asyncIterator]();
    let x = await a.next();
    let y = await b.next();
    while (!x.done || !y.done) {
      if (y.done || (!x.done && x.value.key <= y.value.key)) {
        if (!y.done && !x.done && x.value.key === y.value.key) y = await b.next();
        yield (x as IteratorYieldResult<{ key: string; line: string }>).value;
        x = await a.next();
      } else {
        yield y.value;
        y = await b.next();
      }
    }
  }

  /** Writes a file at `to` atomically (`write` fills it): a temporary file, fsynced, renamed, the directory fsynced. */
  async function writeAtomically<R>(to: string, write: (fh: FileHandle) => Promise<R>): Promise<R> {
    const tmp = `${to}.tmp`;
    const fh = await open(tmp, 'w');
    let result: R;
    try {
      result = await write(fh);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, to);
    const dirHandle = await open(deps.dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
    return result;
  }

  /** Makes `file` (and the delta `over` it) the snapshot the view reads through to. */
  function attachFiles(file: IndexedSnapshot, over: IndexedSnapshot | undefined): void {
    base = file;
    delta = over;
    indexed?.attach((key) => readThrough(file, over, key), undefined, {
      range: (from, to) => rangeThrough(file, over, from, to),
      note: ((over ?? file).header as unknown as Header).note,
    });
  }

  /**
   * After a save (forgetSaved views): reads through to the files just written instead of those of
   * the start, then lets the view drop what they hold. The base read until now is kept when the
   * save wrote only a delta over it; the files replaced are closed once no read through them is
   * under way (retire).
   */
  async function attachSaved(items: T[], kind: string): Promise<void> {
    const unchangedBase = base !== undefined && (base.header as unknown as Header).id === diskBase?.id ? base : undefined;
    const file = unchangedBase ?? (await openIndexed(path));
    if (!file) return;
    const over = await openDelta(file.header as unknown as Header);
    if (kind === 'delta' && !over) {
      // The delta just written did not open: the view keeps reading what it read, and forgets nothing.
      if (file !== unchangedBase) await file.close().catch(() => undefined);
      return;
    }
    const previous = [base, delta].filter((f): f is IndexedSnapshot => f !== undefined && f !== file);
    attachFiles(file, over);
    for (const old of previous) retire(old);
    indexed?.forgetSaved?.(items);
  }

  /** Closes a snapshot file no longer attached: now, or when the last read still using it ends. */
  function retire(file: IndexedSnapshot): void {
    if (reading.has(file)) retired.add(file);
    else void file.close().catch(() => undefined);
  }

  /** Counts a read of `file` under way (readThrough), so that a retired file is not closed under it. */
  function holdFile(file: IndexedSnapshot): void {
    reading.set(file, (reading.get(file) ?? 0) + 1);
  }

  function releaseFile(file: IndexedSnapshot): void {
    const left = (reading.get(file) ?? 1) - 1;
    if (left > 0) {
      reading.set(file, left);
      return;
    }
    reading.delete(file);
    if (retired.delete(file)) void file.close().catch(() => undefined);
  }

  /** Saves an indexed view: only its delta when that stays small beside the base on disk, else a new base. */
  async function saveIndexed(header: Header, items: T[], whole: boolean): Promise<{ count: number; kind: string } | undefined> {
    const onDisk = whole ? undefined : diskBase;
    const deltaItems = items.length + (delta?.count ?? 0);
    try {
      if (onDisk && deltaItems <= Math.max(DELTA_MIN, onDisk.count * DELTA_SHARE)) {
        const count = await writeAtomically(deltaPath, (fh) =>
          writeIndexedSnapshot(fh, { ...header, base: onDisk.id }, merged(items, delta?.scan())),
        );
        return { count, kind: 'delta' };
      }
      const id = randomUUID();
      const under = base && delta ? overlay(delta.scan(), base.scan()) : (delta ?? base)?.scan();
      const count = await writeAtomically(path, (fh) => writeIndexedSnapshot(fh, { ...header, id }, merged(items, under)));
      diskBase = { id, count };
      // The delta applied to the old base: without this, the next start would ignore it anyway.
      await rm(deltaPath, { force: true });
      return { count, kind: 'base' };
    } catch (e) {
      if (!(e instanceof DamagedSnapshotError)) throw e;
      // An attached snapshot is damaged: replay the log into the view, then try again at the next save.
      await recover(e);
      return undefined;
    }
  }

  async function save(whole: boolean): Promise<boolean> {
    await recovering;
    // A view restored on first use holds nothing worth saving until that restore is done.
    if (view.lazy && (!restored || restoreRunning)) return false;
    await restoring?.catch(() => undefined);
    const positions = await positionsNow();
    if (savedAt && view.topics.every((t) => savedAt?.[t] === positions[t])) return false;
    // Exported after reading the positions: the view holds at least what they say.
    const items = view.exportState();
    const note = indexed?.note?.();
    const header: Header = {
      format: view.format,
      view: view.name,
      positions,
      takenAt: (deps.clock?.now() ?? new Date()).toISOString(),
      ...(note === undefined ? {} : { note }),
    };
    await mkdir(deps.dir, { recursive: true });
    const started = performance.now();
    let written: { count: number; kind: string } | undefined;
    if (indexed) written = await saveIndexed(header, items, whole);
    else written = { count: await writeAtomically(path, (fh) => writeLines(fh, header, items)), kind: 'whole' };
    if (!written) return false;
    savedAt = positions;
    if (indexed?.forgetSaved) await attachSaved(items, written.kind);
    logger.info('view snapshot written', {
      view: view.name,
      kind: written.kind,
      items: written.count,
      ms: Math.round(performance.now() - started),
      positions,
    });
    return true;
  }

  const ignore = (reason: string) => {
    logger.warn('view snapshot ignored; the view is replayed from the log', { view: view.name, path, reason });
    return undefined;
  };

  /** Whether a snapshot's positions fit this log (a snapshot ahead of it belongs to another log). */
  async function fitsTheLog(header: Header): Promise<string | undefined> {
    const ends = await deps.log.ends(view.topics);
    for (const topic of view.topics) {
      const at = header.positions?.[topic];
      if (!Number.isSafeInteger(at) || (at as number) < 0) return `no position for ${topic}`;
      // A snapshot ahead of the log belongs to another log (a data dir restored from a backup).
      if ((at as number) > (ends[topic] ?? 0)) return `position ${String(at)} of ${topic} is past the log's end ${ends[topic]}`;
    }
    return undefined;
  }

  /**
   * An indexed snapshot on disk, opened (header, end line and index only), when it is whole, of
   * this format, and not ahead of the log; `unfit` adds a check of its own (a delta's base).
   */
  async function openIndexed(
    at: string,
    unfitFor: (header: Header) => string | undefined = () => undefined,
    skip: (reason: string) => undefined = ignore,
  ): Promise<IndexedSnapshot | undefined> {
    const keyOf = (item: unknown) => (indexed as NonNullable<typeof indexed>).keyOf(item as T);
    let file: IndexedSnapshot;
    try {
      file = await openIndexedSnapshot(at, keyOf);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return skip(e instanceof DamagedSnapshotError ? `incomplete or damaged: ${e.message}` : String(e));
    }
    const header = file.header as unknown as Header;
    const unfit =
      header.format !== view.format || header.view !== view.name
        ? `format ${String(header.format)}, expected ${view.format}`
        : (unfitFor(header) ?? (await fitsTheLog(header)));
    if (unfit) {
      await file.close();
      return skip(unfit);
    }
    return file;
  }

  /** The delta over `onto` (a base just opened), when there is one that fits it. */
  function openDelta(onto: Header): Promise<IndexedSnapshot | undefined> {
    const skip = (reason: string) => {
      logger.warn('view snapshot delta ignored; the log after the base is replayed', { view: view.name, path: deltaPath, reason });
      return undefined;
    };
    return openIndexed(
      deltaPath,
      (header) => {
        if (!onto.id || header.base !== onto.id) return `a delta of base ${String(header.base)}, not of ${String(onto.id)}`;
        const behind = view.topics.find((t) => !((header.positions?.[t] ?? -1) >= (onto.positions[t] ?? 0)));
        return behind === undefined ? undefined : `behind its base on ${behind}`;
      },
      skip,
    );
  }

  /** The snapshot on disk, when it is whole, of this format, and not ahead of the log. */
  async function load(): Promise<{ header: Header; items: T[] } | undefined> {
    let lines: ReturnType<typeof createInterface>;
    try {
      const stream = createReadStream(path, { encoding: 'utf8' });
      await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
      lines = createInterface({ input: stream, crlfDelay: Infinity });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return ignore(String(e));
    }
    let header: Header | undefined;
    type Trailer = { end?: unknown; count?: unknown; crc?: unknown };
    let trailer: Trailer | undefined;
    const items: T[] = [];
    let crc = 0;
    try {
      for await (const line of lines) {
        if (trailer) return ignore('lines after the end line');
        if (!header) {
          header = JSON.parse(line) as Header;
          if (header.format !== view.format || header.view !== view.name)
            return ignore(`format ${String(header.format)}, expected ${view.format}`);
          continue;
        }
        const value = JSON.parse(line) as unknown;
        if (typeof value === 'object' && value !== null && (value as { end?: unknown }).end === true) {
          trailer = value;
          continue;
        }
        if (!view.isItem(value)) return ignore(`invalid item at line ${items.length + 2}`);
        crc = crc32(`${line}\n`, crc);
        items.push(value);
      }
    } catch (e) {
      return ignore(`unreadable: ${String(e)}`);
    } finally {
      lines.close();
    }
    if (!header) return ignore('empty file');
    if (!trailer || trailer.count !== items.length || trailer.crc !== crcText(crc)) return ignore('incomplete or damaged (count or crc)');
    const unfit = await fitsTheLog(header);
    return unfit ? ignore(unfit) : { header, items };
  }

  /** Reads one item of the attached snapshot (undefined: not in it, or the snapshot was found damaged and the view replayed). */
  async function readThrough(file: IndexedSnapshot, over: IndexedSnapshot | undefined, key: string): Promise<T | undefined> {
    holdFile(file);
    if (over) holdFile(over);
    try {
      return await readThroughHeld(file, over, key);
    } finally {
      releaseFile(file);
      if (over) releaseFile(over);
    }
  }

  async function readThroughHeld(file: IndexedSnapshot, over: IndexedSnapshot | undefined, key: string): Promise<T | undefined> {
    try {
      const line = (over && (await over.lookup(key))) ?? (await file.lookup(key));
      if (line === undefined) return undefined;
      const item = JSON.parse(line) as unknown;
      if (!view.isItem(item)) throw new DamagedSnapshotError(`invalid item for ${key}`);
      return item;
    } catch (e) {
      if (file !== base) {
        // Detached meanwhile (a recovery, a new restore): the view holds it once that is done.
        await recovering;
        return undefined;
      }
      if (!(e instanceof DamagedSnapshotError) && !(e instanceof SyntaxError)) throw e;
      await recover(e);
      return undefined;
    }
  }

  /** The items of the attached snapshot in [from, to), read whole before any is handed out (a damaged block: none, the view replayed). */
  async function* rangeThrough(file: IndexedSnapshot, over: IndexedSnapshot | undefined, from: string, to: string): AsyncIterable<T> {
    const items: T[] = [];
    try {
      for await (const { key, line } of over ? overlay(over.range(from, to), file.range(from, to)) : file.range(from, to)) {
        const item = JSON.parse(line) as unknown;
        if (!view.isItem(item)) throw new DamagedSnapshotError(`invalid item for ${key}`);
        items.push(item);
      }
    } catch (e) {
      if (file !== base) return void (await recovering);
      if (!(e instanceof DamagedSnapshotError) && !(e instanceof SyntaxError)) throw e;
      return void (await recover(e));
    }
    yield* items;
  }

  return {
    name: view.name,
    restore(opts = {}) {
      restoreRunning = true;
      const running = restore(opts).finally(() => (restoreRunning = false));
      restoring = running;
      return running;
    },
    save(opts = {}) {
      // One at a time: a periodic save and the shutdown one never write the same file at once.
      const next = (saving ?? Promise.resolve(false)).catch(() => false).then(() => save(opts.whole ?? false));
      saving = next;
      return next;
    },
    lastRestore: () => restored,
    async close() {
      await saving?.catch(() => false);
      await base?.close().catch(() => undefined);
      await delta?.close().catch(() => undefined);
      for (const file of retired) await file.close().catch(() => undefined);
      retired.clear();
    },
  };

  async function restore(opts: { fromScratch?: boolean; onRecord?: () => void }): Promise<RestoreResult> {
    await recovering;
    await base?.close().catch(() => undefined);
    await delta?.close().catch(() => undefined);
    base = undefined;
    delta = undefined;
    diskBase = undefined;
    await view.clear();
    indexed?.attach(undefined);
    let from: Record<string, number> = {};
    let items = 0;
    if (!opts.fromScratch && indexed) {
      const file = await openIndexed(path);
      if (file) {
        const header = file.header as unknown as Header;
        const over = await openDelta(header);
        if (header.id) diskBase = { id: header.id, count: file.count };
        attachFiles(file, over);
        from = ((over ?? file).header as unknown as Header).positions;
        items = file.count + (over?.count ?? 0);
      }
    } else if (!opts.fromScratch) {
      const snapshot = await load();
      if (snapshot) {
        view.importState(snapshot.items);
        from = snapshot.header.positions;
        items = snapshot.items.length;
      }
    }
    const fromSnapshot = Object.keys(from).length > 0;
    const { replayed, ends } = await replay(from, opts.onRecord);
    await view.markBuilt();
    restoredTo = ends;
    savedAt = fromSnapshot ? from : undefined;
    restored = { fromSnapshot, replayed };
    logger.info('view restored', { view: view.name, ...restored, items });
    return restored;
  }
}

/** Records replayed at start past which a snapshot is written at once. */
const LONG_REPLAY = 10_000;

const crcText = (crc: number) => crc.toString(16).padStart(8, '0');

/**
 * The snapshots of a process's views: restored at start, written every `intervalMs` (when the
 * log moved) and once more at a clean shutdown. A failed periodic write is logged, never thrown:
 * the next start then replays a longer tail, nothing more.
 */
export class ViewSnapshots {
  private timer: NodeJS.Timeout | undefined;

  readonly snapshotters: ViewSnapshotter[];
  private readonly logger: Logger;
  constructor(snapshotters: ViewSnapshotter[], logger: Logger = silentLogger) {
    this.snapshotters = snapshotters;
    this.logger = logger;
  }

  get(name: string): ViewSnapshotter | undefined {
    return this.snapshotters.find((s) => s.name === name);
  }

  async saveAll(): Promise<void> {
    for (const s of this.snapshotters) {
      await s.save().catch((err: unknown) => this.logger.error('view snapshot failed', { view: s.name, err }));
    }
  }

  /**
   * Starts the periodic snapshots (0: only at shutdown). A start that replayed a long log
   * (no snapshot yet, or an old one) writes one at once, in the background.
   */
  every(intervalMs: number): void {
    this.saveAfterLongReplay();
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.saveAll(), intervalMs);
    this.timer.unref();
  }

  /**
   * Writes the snapshots at once, in the background, when a view's last restore replayed a long
   * log (a view restored after `every`, such as the Idempotency-Keys after listening, calls it again).
   */
  saveAfterLongReplay(): void {
    if (this.snapshotters.some((s) => (s.lastRestore()?.replayed ?? 0) >= LONG_REPLAY)) void this.saveAll();
  }

  /** Stops the timer and writes a last snapshot: call it after the projectors stopped (their positions are committed). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.saveAll();
    for (const s of this.snapshotters) await s.close();
  }
}

const statusEntry = Compile(StatusViewEntry);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: Record<string, unknown>, ...keys: string[]) => keys.every((k) => typeof v[k] === 'string');

/** A template head or version as the memory template view keeps it (the view has no schema of its own). */
function isTemplateItem(value: unknown): value is TemplateViewItem {
  if (!isRecord(value)) return false;
  if (isRecord(value.head)) {
    const h = value.head;
    return strings(h, 'tenantId', 'templateId', 'name', 'createdAt', 'updatedAt') && Number.isSafeInteger(h.latestVersion);
  }
  if (isRecord(value.version)) {
    const v = value.version;
    return strings(v, 'tenantId', 'templateId', 'createdAt') && Number.isSafeInteger(v.version);
  }
  return false;
}

/**
 * The embedded profile's snapshots: the status view and the template view, the two views a
 * start rebuilds before serving (see startStatusProjector/startTemplateProjector; the groups
 * are the projectors' default groups), and, when given, the log facts the Idempotency-Keys are
 * rebuilt from (`idempotency-keys`: restored by the keys' first use or warm-up, kept by the
 * snapshotter itself: no projector group), and the webhook deliveries (`deliveries`, indexed,
 * restored before the dispatcher starts: see createSnapshottedDeliveries). Bump a format when its view's item shape changes.
 */
export function embeddedViewSnapshots(deps: {
  dir: string;
  log: FileEventLog;
  status: MemoryStatusView;
  templates: MemoryTemplateView;
  topics: TopicNames;
  idempotency?: KeyedLogFacts;
  deliveries?: SnapshottedDeliveries;
  logger?: Logger;
}): ViewSnapshots {
  const { status, templates, topics, idempotency, deliveries } = deps;
  const delivered = deliveries && [
    createViewSnapshotter<DeliveryDocumentItem>(
      {
        name: 'deliveries',
        format: 'deliveries/1',
        topics: [topics.completed, topics.webhooks],
        // The webhook dispatcher's group (its default): what it committed, it applied.
        group: `${topics.prefix}.webhooks`,
        lazy: true,
        exportState: () => deliveries.exportState(),
        importState: () => undefined, // indexed: attached, never loaded
        indexed: {
          keyOf: (item) => deliveries.keyOf(item),
          attach: (base, readsWaitFor, file) => deliveries.attach(base, readsWaitFor, file),
          note: () => deliveries.note(),
        },
        isItem: (v): v is DeliveryDocumentItem => deliveries.isItem(v),
        apply: (record) => deliveries.apply(record),
        // Never wipes, as a replay of the deliveries: applies are idempotent and forward-only.
        clear: async () => undefined,
        markBuilt: () => deliveries.markBuilt(),
      },
      deps,
    ),
  ];
  const keys = idempotency && [
    createViewSnapshotter<KeyedLogFact>(
      {
        name: 'idempotency-keys',
        format: idempotency.format,
        topics: renderTopics(topics),
        lazy: true,
        exportState: () => idempotency.exportState(),
        importState: (items) => idempotency.importState(items),
        isItem: (v): v is KeyedLogFact => idempotency.isItem(v),
        apply: async (record) => idempotency.apply(record),
        clear: async () => idempotency.clear(),
        markBuilt: () => idempotency.markBuilt(),
      },
      deps,
    ),
  ];
  return new ViewSnapshots(
    [
      createViewSnapshotter(
        {
          name: 'status',
          // 2: sorted, in blocks with an index, read where it lies (indexed-snapshot-file.ts).
          format: 'status-view/2',
          topics: renderTopics(topics),
          group: `${topics.prefix}.status-projector`,
          exportState: () => status.exportState(),
          importState: (items) => status.importState(items),
          indexed: {
            keyOf: (entry) => entry.requestId,
            attach: (base, readsWaitFor) => status.attachBase(base, readsWaitFor),
            forgetSaved: (saved) => void status.forgetSaved(saved),
          },
          isItem: (v): v is StatusViewEntry => statusEntry.Check(v),
          apply: async ({ event }) => void ('requestId' in event ? await status.apply(event) : undefined),
          clear: () => status.clear(),
          markBuilt: () => status.markBuilt(),
        },
        deps,
      ),
      createViewSnapshotter(
        {
          name: 'templates',
          format: 'template-view/1',
          topics: [topics.templates],
          group: `${topics.prefix}.template-projector`,
          exportState: () => templates.exportState(),
          importState: (items) => templates.importState(items),
          isItem: isTemplateItem,
          apply: async ({ event }) => void ('templateId' in event ? await templates.apply(event) : undefined),
          clear: () => templates.clear(),
          markBuilt: () => templates.markBuilt(),
        },
        deps,
      ),
      ...(keys ?? []),
      ...(delivered ?? []),
    ],
    deps.logger,
  );
}
