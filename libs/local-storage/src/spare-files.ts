import { mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** A new empty file, open for writing, made before the write that takes it. */
export interface SpareFile {
  path: string;
  handle: FileHandle;
}

/** Files in the folder older than this are what an ended process left (spares, writes cut short): removed. */
const STALE_MS = 60 * 60 * 1000;

/**
 * Empty files made in `dir` ahead of the writes that take them. Creating a file (a directory entry
 * and an inode, on the file system's thread pool) took 0.57 ms at the median and 1.65 ms at p90 of an
 * embedded sync render's file put at concurrency 1, on its answer's path (issue 13); made here, it
 * happens while the next render prints. At most `count` wait; each one taken starts making the
 * next. A failure to make one costs nothing but the saving: the write makes its own file.
 *
 * The files the process holds when it ends stay in `dir`, empty, as a write cut short by a crash
 * leaves its file: the first spare made after a start removes the files there older than an hour.
 */
export class SpareFiles {
  readonly #ready: SpareFile[] = [];
  readonly #dir: string;
  readonly #count: number;
  readonly #name: () => string;
  #making = 0;
  #swept = false;
  #closed = false;

  constructor(dir: string, count: number, name: () => string) {
    this.#dir = dir;
    this.#count = count;
    this.#name = name;
  }

  /** A spare, when one is ready (then the next is begun), else undefined (and one is begun). */
  take(): SpareFile | undefined {
    const spare = this.#ready.shift();
    this.#refill();
    return spare;
  }

  /** Closes and removes the spares not taken; later takes answer undefined. */
  async close(): Promise<void> {
    this.#closed = true;
    const left = this.#ready.splice(0);
    await Promise.allSettled(left.map((spare) => discard(spare)));
  }

  #refill(): void {
    while (!this.#closed && this.#ready.length + this.#making < this.#count) {
      this.#making++;
      void this.#make()
        .then(
          (spare) => {
            if (this.#closed) return discard(spare);
            this.#ready.push(spare);
          },
          () => {},
        )
        .finally(() => this.#making--);
    }
  }

  async #make(): Promise<SpareFile> {
    if (!this.#swept) {
      this.#swept = true;
      await this.#sweep();
    }
    const path = join(this.#dir, this.#name());
    let handle: FileHandle;
    try {
      handle = await open(path, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(this.#dir, { recursive: true });
      handle = await open(path, 'wx');
    }
    return { path, handle };
  }

  /** Removes what an ended process left in the folder (best effort: a file another write holds is younger). */
  async #sweep(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.#dir);
    } catch {
      return;
    }
    const before = Date.now() - STALE_MS;
    for (const name of names) {
      const path = join(this.#dir, name);
      try {
        if ((await stat(path)).mtimeMs < before) await rm(path, { force: true });
      } catch {
        // gone meanwhile, or not ours to remove: left as it is
      }
    }
  }
}

async function discard(spare: SpareFile): Promise<void> {
  await spare.handle.close().catch(() => {});
  await rm(spare.path, { force: true });
}
