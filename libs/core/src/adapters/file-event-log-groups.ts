import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../ports/logger.ts';

/** File name of a group's or topic's file: any name is allowed, none escapes the directory. */
export function fileNameFor(name: string, extension: string): string {
  if (name.length === 0) throw new Error('event log: topic and group names must not be empty');
  return `${encodeURIComponent(name)}${extension}`;
}

/** Writes `data` to `path` atomically: temporary file, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  const dir = await open(join(path, '..'), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

interface GroupFile {
  group: string;
  /** Next offset to deliver, per topic (Kafka's meaning of a committed offset), as decimal strings. */
  offsets: Record<string, string>;
}

/**
 * How long a commit waits for later ones before the positions are written. Every group commits
 * each record it handles, and a render passes several records through every group; one
 * write+fsync+rename+directory fsync per record was about a tenth of the embedded service's CPU
 * per render (bench/service.bench.ts --cpu-prof). At 100 ms the eight groups of the embedded
 * profile still wrote their files (two fsyncs each) about once per render at concurrency 1, in
 * the disk queue beside the fsyncs a sync caller waits for; at 1 s they write a tenth as often.
 * A crash loses at most this much of the positions, which means redelivery only: consumers are
 * idempotent (at-least-once), and the render worker skips a request the status view already
 * holds decided.
 */
export const COMMIT_COALESCE_MS = 1000;

/**
 * A consumer group's committed positions, kept in `<dir>/<group>.json`. Commits are
 * coalesced: a commit waits COMMIT_COALESCE_MS for later ones (flush cuts the wait short),
 * while one write runs later commits only mark the file dirty, and the next write carries the
 * latest positions. Losing a commit only means redelivery (at-least-once), so a failed write
 * is logged and retried with the next commit, never thrown at a consumer.
 */
export class GroupOffsets {
  private dirty = false;
  private writeActive = false;
  private writes: Promise<void> = Promise.resolve();
  /** Ends the coalescing wait at once (flush). */
  private hurry: (() => void) | undefined;

  readonly group: string;
  private readonly path: string;
  private readonly offsets: Map<string, number>;
  private readonly logger: Logger;

  private constructor(group: string, path: string, offsets: Map<string, number>, logger: Logger) {
    this.group = group;
    this.path = path;
    this.offsets = offsets;
    this.logger = logger;
  }

  static async load(dir: string, group: string, logger: Logger): Promise<GroupOffsets> {
    const path = join(dir, fileNameFor(group, '.json'));
    const offsets = new Map<string, number>();
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (text !== undefined) {
      const parsed = JSON.parse(text) as GroupFile;
      for (const [topic, offset] of Object.entries(parsed.offsets)) offsets.set(topic, Number(offset));
    }
    return new GroupOffsets(group, path, offsets, logger);
  }

  get(topic: string): number | undefined {
    return this.offsets.get(topic);
  }

  commit(topic: string, next: number): void {
    if (this.offsets.get(topic) === next) return;
    this.offsets.set(topic, next);
    this.dirty = true;
    if (!this.writeActive) {
      this.writeActive = true;
      this.writes = this.writeLoop();
    }
  }

  /** Resolves when every position committed before the call is on disk (or its write failed). */
  async flush(): Promise<void> {
    while (this.writeActive) {
      this.hurry?.();
      await this.writes;
    }
  }

  private async writeLoop(): Promise<void> {
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, COMMIT_COALESCE_MS);
        timer.unref?.();
        this.hurry = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.hurry = undefined;
      while (this.dirty) await this.writeOnce();
    } finally {
      this.writeActive = false;
    }
  }

  private async writeOnce(): Promise<void> {
    this.dirty = false;
    const file: GroupFile = {
      group: this.group,
      offsets: Object.fromEntries([...this.offsets].map(([topic, next]) => [topic, String(next)])),
    };
    try {
      await writeFileAtomic(this.path, `${JSON.stringify(file)}\n`);
    } catch (e) {
      this.logger.error('event log: cannot commit group positions', { group: this.group, error: String(e) });
    }
  }
}
