import { createReadStream } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { crc32 } from 'node:zlib';
import { Compile } from 'typebox/compile';
import { StatusViewEntry } from '@pressroom/schemas';
import type { FileEventLog } from './adapters/file-event-log.ts';
import type { MemoryStatusView } from './adapters/memory-status-view.ts';
import type { MemoryTemplateView, TemplateViewItem } from './adapters/memory-template-view.ts';
import type { LogRecord, TopicNames } from './ports/event-log.ts';
import { renderTopics } from './self-rebuilding-views.ts';
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
 */

export interface SnapshotView<T> {
  /** The view's name, and its file's. */
  name: string;
  /**
   * The format of the items: bump it whenever the shape of an item changes, so a snapshot
   * written by an older version is ignored (and rebuilt) rather than misread.
   */
  format: string;
  /** The topics the view is built from, and the consumer group that keeps it up to date. */
  topics: string[];
  group: string;
  exportState(): T[];
  importState(items: T[]): void;
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
  /** Writes a snapshot of the view as it stands (no-op when the log has not moved since the last one). */
  save(): Promise<boolean>;
  /** What the last `restore` did (for the tests and the start-up log line). */
  lastRestore(): RestoreResult | undefined;
}

interface Header {
  format: string;
  view: string;
  positions: Record<string, number>;
  takenAt: string;
}

export function createViewSnapshotter<T>(
  view: SnapshotView<T>,
  deps: { dir: string; log: FileEventLog; logger?: Logger; clock?: { now(): Date } },
): ViewSnapshotter {
  const logger = deps.logger ?? silentLogger;
  const path = join(deps.dir, `${encodeURIComponent(view.name)}.snapshot`);
  /** The log positions every record below which the view holds since `restore` (its replay's ends). */
  let restoredTo: Record<string, number> = {};
  let savedAt: Record<string, number> | undefined;
  let restored: RestoreResult | undefined;
  let saving: Promise<boolean> | undefined;

  async function positionsNow(): Promise<Record<string, number>> {
    // The view holds every record below the replay's ends (restore) and every record below
    // the group's committed position (its projector applied them before committing): both
    // are prefixes of the log, so it holds the longer one.
    const out: Record<string, number> = {};
    for (const topic of view.topics) {
      out[topic] = Math.max(restoredTo[topic] ?? 0, await deps.log.committed(view.group, topic));
    }
    return out;
  }

  async function save(): Promise<boolean> {
    const positions = await positionsNow();
    if (savedAt && view.topics.every((t) => savedAt?.[t] === positions[t])) return false;
    // Exported after reading the positions: the view holds at least what they say.
    const items = view.exportState();
    const header: Header = { format: view.format, view: view.name, positions, takenAt: (deps.clock?.now() ?? new Date()).toISOString() };
    await mkdir(deps.dir, { recursive: true });
    const tmp = `${path}.tmp`;
    const fh = await open(tmp, 'w');
    try {
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
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    const dirHandle = await open(deps.dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
    savedAt = positions;
    logger.info('view snapshot written', { view: view.name, items: items.length, positions });
    return true;
  }

  /** The snapshot on disk, when it is whole, of this format, and not ahead of the log. */
  async function load(): Promise<{ header: Header; items: T[] } | undefined> {
    const ignore = (reason: string) => {
      logger.warn('view snapshot ignored; the view is replayed from the log', { view: view.name, path, reason });
      return undefined;
    };
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
    const ends = await deps.log.ends(view.topics);
    for (const topic of view.topics) {
      const at = header.positions?.[topic];
      if (!Number.isSafeInteger(at) || (at as number) < 0) return ignore(`no position for ${topic}`);
      // A snapshot ahead of the log belongs to another log (a data dir restored from a backup).
      if ((at as number) > (ends[topic] ?? 0)) return ignore(`position ${String(at)} of ${topic} is past the log's end ${ends[topic]}`);
    }
    return { header, items };
  }

  return {
    name: view.name,
    async restore(opts = {}) {
      const snapshot = opts.fromScratch ? undefined : await load();
      await view.clear();
      if (snapshot) view.importState(snapshot.items);
      const from = snapshot?.header.positions ?? {};
      const ends = await deps.log.ends(view.topics);
      let replayed = 0;
      await deps.log.readFrom(view.topics, from, async (record) => {
        // Only up to the ends read above: what comes later is the projector's.
        if (Number(record.offset) >= (ends[record.topic] ?? 0)) return;
        replayed++;
        opts.onRecord?.();
        await view.apply(record);
      });
      await view.markBuilt();
      restoredTo = ends;
      savedAt = snapshot?.header.positions;
      restored = { fromSnapshot: snapshot !== undefined, replayed };
      logger.info('view restored', { view: view.name, ...restored, items: snapshot?.items.length ?? 0 });
      return restored;
    },
    save() {
      // One at a time: a periodic save and the shutdown one never write the same file at once.
      const next = (saving ?? Promise.resolve(false)).catch(() => false).then(() => save());
      saving = next;
      return next;
    },
    lastRestore: () => restored,
  };
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

  constructor(
    readonly snapshotters: ViewSnapshotter[],
    private readonly logger: Logger = silentLogger,
  ) {}

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
    if (this.snapshotters.some((s) => (s.lastRestore()?.replayed ?? 0) >= LONG_REPLAY)) void this.saveAll();
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.saveAll(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes a last snapshot: call it after the projectors stopped (their positions are committed). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.saveAll();
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
 * start rebuilds before serving (see startStatusProjector/startTemplateProjector). The groups
 * are the projectors' default groups. Bump a format when its view's item shape changes.
 */
export function embeddedViewSnapshots(deps: {
  dir: string;
  log: FileEventLog;
  status: MemoryStatusView;
  templates: MemoryTemplateView;
  topics: TopicNames;
  logger?: Logger;
}): ViewSnapshots {
  const { status, templates, topics } = deps;
  return new ViewSnapshots(
    [
      createViewSnapshotter(
        {
          name: 'status',
          format: 'status-view/1',
          topics: renderTopics(topics),
          group: `${topics.prefix}.status-projector`,
          exportState: () => status.exportState(),
          importState: (items) => status.importState(items),
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
    ],
    deps.logger,
  );
}
