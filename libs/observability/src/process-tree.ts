import { readdir, readFile } from 'node:fs/promises';

/** Linux's USER_HZ and page size; the values of every Linux build Pressroom runs on (x86-64, arm64). */
const CLOCK_TICKS_PER_SECOND = 100;
const PAGE_BYTES = 4096;

export interface TreeUsage {
  /** CPU seconds of every process ever seen under the root (monotonic: exited ones are kept). */
  cpuSeconds: number;
  /** Resident memory of the live processes under the root, summed. */
  residentBytes: number;
  processes: number;
}

/**
 * CPU and memory of the processes under one root (the renderer host: its Chromium browser and
 * every process Chromium forks), read from /proc. The root itself is not counted. Where /proc
 * is absent (not Linux) every value stays 0. The CPU total never goes down: a process that
 * exited keeps the last CPU time seen for it.
 */
export class ProcessTreeUsage {
  readonly #lastCpu = new Map<number, number>();
  #exitedCpu = 0;
  #cached: { at: number; root: number | undefined; usage: Promise<TreeUsage> } | undefined;

  private readonly proc: string;
  private readonly cacheMs: number;
  constructor(proc = '/proc', cacheMs = 500) {
    this.proc = proc;
    this.cacheMs = cacheMs;
  }

  /**
   * Reads /proc at most once per `cacheMs` for the same root (one scrape reads several metrics),
   * asynchronously: a scrape never holds the event loop for the ~150 small reads.
   */
  sample(root: number | undefined): Promise<TreeUsage> {
    const now = performance.now();
    if (this.#cached && this.#cached.root === root && now - this.#cached.at < this.cacheMs) return this.#cached.usage;
    const usage = this.#read(root);
    this.#cached = { at: now, root, usage };
    return usage;
  }

  async #read(root: number | undefined): Promise<TreeUsage> {
    const stats = root === undefined ? [] : await descendants(this.proc, root);
    const live = new Map<number, number>();
    let residentBytes = 0;
    for (const s of stats) {
      live.set(s.pid, s.cpuSeconds);
      residentBytes += s.residentBytes;
    }
    for (const [pid, cpu] of this.#lastCpu) if (!live.has(pid)) this.#exitedCpu += cpu;
    this.#lastCpu.clear();
    let cpuSeconds = this.#exitedCpu;
    for (const [pid, cpu] of live) {
      this.#lastCpu.set(pid, cpu);
      cpuSeconds += cpu;
    }
    return { cpuSeconds, residentBytes, processes: live.size };
  }
}

interface ProcStat {
  pid: number;
  ppid: number;
  cpuSeconds: number;
  residentBytes: number;
}

/** Parses /proc/<pid>/stat: the command (field 2) may hold spaces and parentheses, so fields are counted from its last ')'. */
export function parseProcStat(pid: number, text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = text.slice(close + 2).split(' '); // f[0] is field 3 (state)
  const ppid = Number(f[1]);
  const utime = Number(f[11]);
  const stime = Number(f[12]);
  const rss = Number(f[21]);
  if (![ppid, utime, stime, rss].every(Number.isFinite)) return undefined;
  return { pid, ppid, cpuSeconds: (utime + stime) / CLOCK_TICKS_PER_SECOND, residentBytes: rss * PAGE_BYTES };
}

async function descendants(proc: string, root: number): Promise<ProcStat[]> {
  let names: string[];
  try {
    names = await readdir(proc);
  } catch {
    return [];
  }
  const read = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map((name) =>
        readFile(`${proc}/${name}/stat`, 'utf8').then(
          (text) => parseProcStat(Number(name), text),
          () => undefined, // exited while we looked
        ),
      ),
  );
  const all = read.filter((s): s is ProcStat => s !== undefined);
  const children = new Map<number, ProcStat[]>();
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const out: ProcStat[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const s = stack.pop()!;
    out.push(s);
    stack.push(...(children.get(s.pid) ?? []));
  }
  return out;
}
