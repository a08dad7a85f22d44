import { execFile, fork, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RenderFailure, silentLogger } from '@pressroom/core';
import type { FailureCodeValue, Logger, Renderer, RenderJob, RenderOutput } from '@pressroom/core';
import { FailureCode } from '@pressroom/schemas';
import { resolveChromiumPath } from './chromium-path.ts';
import { hostEnv } from './host/host-env.ts';
import { HOST_FAULT_EXIT, type FromHost, type HostSettings, type ToHost } from './host/protocol.ts';
import { LaneQueue } from './lane-queue.ts';
import { PoolClosedError } from './page-pool.ts';
import type { PngEncoding } from './png-capture.ts';

export interface SupervisedRendererOptions {
  executablePath?: string;
  /** Warm pages in the host, hence renders at once. */
  pages: number;
  recycleAfter: number;
  allowedHosts?: string[];
  /** Allowed hosts may resolve to private (not loopback or metadata) addresses. Default false. */
  allowPrivateHosts?: boolean;
  maxOutputBytes: number;
  /** Largest PNG in pixels (OUTPUT_TOO_LARGE above). Default: the renderer's. */
  maxPngPixels?: number;
  /** How PNG output is compressed. Default: the renderer's (`fast`). */
  pngEncoding?: PngEncoding;
  logger?: Logger;
  /**
   * Run the host (and its Chromium) as this unprivileged user; Chromium's sandbox is then on.
   * Needs this process to run as root. Default: this process's own user, and the sandbox is on
   * exactly when that user is not root.
   */
  user?: { uid: number; gid: number };
  /** How long past its own time limit a job may go unanswered before the host counts as wedged. */
  graceMs?: number;
  /** Restart back-off after a crash: doubles per quick crash in a row, up to the cap. */
  restartBaseMs?: number;
  restartMaxMs?: number;
}

export interface SupervisedRendererStats {
  hostPid: number | undefined;
  hostStarts: number;
  hostCrashes: number;
  sandbox: boolean;
  /** Jobs in the host now (each holds one of its pages). */
  busyPages: number;
  /** Pages the hosts' pools replaced (recycled after recycleAfter jobs, spoiled, or a failed reset), every host so far. */
  pagesReplaced: number;
}

export type SupervisedRenderer = Renderer & { stats(): SupervisedRendererStats };

/** Every failure code of the schema (a closed list), so a code the host sends is passed on only if it is one. */
const FAILURE_CODES: readonly string[] = FailureCode.anyOf.map((literal) => String(literal.const));
/** A host that lived this long before it died counts as healthy: the back-off starts over. */
const HEALTHY_AFTER_MS = 30_000;
const START_TIMEOUT_MS = 60_000;
const PING_TIMEOUT_MS = 5_000;
const CLOSE_TIMEOUT_MS = 15_000;

const hostEntry = join(import.meta.dirname, 'host', 'renderer-host.ts');
// The host is TypeScript like the rest: where Node strips types itself (>= 22.18) it runs as it
// is, as the apps do (scripts/run-ts.mjs); elsewhere under tsx's loader.
const hostExecArgv: string[] = (process.features as { typescript?: string | false }).typescript
  ? []
  : ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];

/** A service started with `--cpu-prof` (bench/service.bench.ts --cpu-prof) profiles its renderer hosts too. */
const profilingArgv = process.execArgv.filter((a) => a === '--cpu-prof' || /^--cpu-prof-[a-z]+=/.test(a));

/**
 * The Renderer port with the renderer in a child process (the renderer host, which owns the
 * PlaywrightRenderer and Chromium), so that nothing a tenant page does to Playwright or Chromium
 * can end or wedge the process that serves HTTP or consumes the log. The supervisor forks the
 * host, sends it jobs (the tenant's assets are asked for by name and answered from here), and:
 * - when the host exits, fails the jobs it had with RENDER_CRASHED (the render worker retries
 *   them a bounded number of times) and starts a new host, with back-off if it keeps dying;
 * - when a job goes unanswered past its own time limit plus a grace, kills the host (and its
 *   Chromium, which shares its process group) as wedged.
 * Each host gets a fresh private directory as HOME and TMPDIR (Chromium's profile lands there),
 * removed when the host ends, however it ends.
 */
export async function createSupervisedRenderer(options: SupervisedRendererOptions): Promise<SupervisedRenderer> {
  const supervisor = new Supervisor(options);
  await supervisor.host(); // a broken installation fails at start, not on the first job
  return {
    render: (job) => supervisor.render(job),
    browserVersion: () => supervisor.browserVersion(),
    ping: () => supervisor.ping(),
    close: () => supervisor.close(),
    stats: () => supervisor.stats(),
  };
}

interface Pending {
  resolve(out: RenderOutput): void;
  reject(err: Error): void;
  job: RenderJob;
}

class Host {
  readonly pending = new Map<number, Pending>();
  readonly pings = new Map<number, (error: string | undefined) => void>();
  readonly startedAt = Date.now();
  /** Its pool's pages replaced so far, as of its last answer. */
  pagesReplaced = 0;
  readonly exited: Promise<void>;
  /** Settles once the supervisor has cleaned up after the host (its directory removed). */
  cleanedUp: Promise<void> = Promise.resolve();
  #why: string | undefined;

  readonly proc: ChildProcess;
  readonly dir: string;
  constructor(proc: ChildProcess, dir: string) {
    this.proc = proc;
    this.dir = dir;
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null && this.#why === undefined;
  }

  send(msg: ToHost): boolean {
    if (!this.proc.connected) return false;
    try {
      return this.proc.send(msg);
    } catch {
      return false;
    }
  }

  /** Kills the host and everything it started (its Chromium shares the process group). */
  kill(why: string): void {
    this.#why ??= why;
    const pid = this.proc.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      this.proc.kill('SIGKILL');
    }
  }

  get killedBecause(): string | undefined {
    return this.#why;
  }
}

class Supervisor {
  readonly #opts: SupervisedRendererOptions;
  readonly #log: Logger;
  readonly #settings: HostSettings;
  readonly #slots: LaneQueue<number>;
  #current: Host | undefined;
  #starting: Promise<Host> | undefined;
  /** Pages replaced by the hosts that ended, and by the one running now (as of its last answer). */
  #pagesReplacedBefore = 0;
  #notBefore = 0;
  #quickCrashes = 0;
  #starts = 0;
  #crashes = 0;
  #nextId = 1;
  #closed = false;
  #version: Promise<string | undefined> | undefined;

  constructor(opts: SupervisedRendererOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ component: 'renderer-supervisor' });
    const runsAs = opts.user?.uid ?? process.getuid?.() ?? 0;
    this.#settings = {
      executablePath: resolveChromiumPath(opts.executablePath),
      pages: opts.pages,
      recycleAfter: opts.recycleAfter,
      allowedHosts: opts.allowedHosts ?? [],
      allowPrivateHosts: opts.allowPrivateHosts ?? false,
      maxOutputBytes: opts.maxOutputBytes,
      ...(opts.maxPngPixels !== undefined ? { maxPngPixels: opts.maxPngPixels } : {}),
      ...(opts.pngEncoding !== undefined ? { pngEncoding: opts.pngEncoding } : {}),
      sandbox: runsAs !== 0,
      dir: '',
    };
    // As many jobs in the host as it has pages, so a job's time there is render time, not a
    // wait for a page: the wedge deadline below can then be the job's own limit plus a grace.
    this.#slots = new LaneQueue(Array.from({ length: opts.pages }, (_, i) => i));
  }

  stats(): SupervisedRendererStats {
    return {
      hostPid: this.#current?.pid,
      hostStarts: this.#starts,
      hostCrashes: this.#crashes,
      sandbox: this.#settings.sandbox,
      busyPages: this.#opts.pages - this.#slots.freeCount,
      pagesReplaced: this.#pagesReplacedBefore + (this.#current?.pagesReplaced ?? 0),
    };
  }

  async render(job: RenderJob): Promise<RenderOutput> {
    const slot = await this.#slots.take(job.lane ?? 'async').catch(() => {
      throw new RenderFailure('RENDER_ERROR', 'The renderer is closed.', { cause: new PoolClosedError() });
    });
    try {
      const host = await this.host().catch((err: unknown) => {
        throw new RenderFailure('RENDER_CRASHED', 'The renderer is not available.', { cause: err });
      });
      return await this.#renderOn(host, job);
    } finally {
      this.#slots.give(slot);
    }
  }

  /** `<chromium> --version`, asked once (the binary does not change under a running service). */
  browserVersion(): Promise<string | undefined> {
    this.#version ??= new Promise((resolve) => {
      execFile(this.#settings.executablePath, ['--version'], { timeout: 10_000 }, (err, stdout) => {
        const version = err ? undefined : String(stdout).trim().split('\n')[0]?.slice(0, 200);
        if (err) this.#log.warn('could not read the browser version', { err });
        resolve(version || undefined);
      });
    });
    return this.#version;
  }

  /** Answers for the host running now; while one is being restarted, fails at once (not ready). */
  async ping(): Promise<void> {
    const host = this.#current;
    if (!host?.alive) throw new Error('the renderer is restarting');
    const id = this.#nextId++;
    const answer = new Promise<string | undefined>((resolve) => {
      host.pings.set(id, resolve);
      setTimeout(() => resolve('no answer from the renderer host'), PING_TIMEOUT_MS).unref();
    });
    if (!host.send({ t: 'ping', id })) throw new Error('the renderer host is not running');
    const error = await answer;
    host.pings.delete(id);
    if (error) throw new Error(error);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#slots.close(new PoolClosedError());
    const host = this.#current ?? (await this.#starting?.catch(() => undefined));
    if (!host?.alive) return;
    host.send({ t: 'close' });
    const timer = setTimeout(() => host.kill('did not close in time'), CLOSE_TIMEOUT_MS);
    await host.exited;
    clearTimeout(timer);
    await host.cleanedUp; // the app exits right after close(): the directory must be gone by then
  }

  /** The running host, or a new one (after the back-off, when the last ones died quickly). */
  host(): Promise<Host> {
    if (this.#closed) return Promise.reject(new PoolClosedError());
    if (this.#current?.alive) return Promise.resolve(this.#current);
    this.#starting ??= (async () => {
      const wait = this.#notBefore - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      return this.#spawn();
    })().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  #renderOn(host: Host, job: RenderJob): Promise<RenderOutput> {
    const id = this.#nextId++;
    const graceMs = this.#opts.graceMs ?? 15_000;
    return new Promise<RenderOutput>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#log.error('the renderer host did not answer a job in time; killing it', { jobTimeoutMs: job.timeoutMs, graceMs });
        host.kill('stopped answering');
      }, job.timeoutMs + graceMs);
      const settle = () => {
        clearTimeout(timer);
        host.pending.delete(id);
      };
      host.pending.set(id, {
        job,
        resolve: (out) => (settle(), resolve(out)),
        reject: (err) => (settle(), reject(err)),
      });
      const { assets, ...wire } = job;
      if (!host.send({ t: 'render', id, job: wire, hasAssets: assets !== undefined })) {
        host.pending.get(id)?.reject(new RenderFailure('RENDER_CRASHED', 'The renderer stopped before it took the job.'));
      }
    });
  }

  async #spawn(): Promise<Host> {
    if (this.#closed) throw new PoolClosedError();
    const user = this.#opts.user;
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-renderer-'));
    if (user) await chown(dir, user.uid, user.gid);
    const proc = fork(hostEntry, [], {
      execArgv: [...hostExecArgv, ...profilingArgv],
      env: hostEnv(dir),
      cwd: dir,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Its own process group, so a kill takes its Chromium too.
      detached: true,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    this.#starts++;
    const host = new Host(proc, dir);
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        host.kill('did not start in time');
        reject(new Error('the renderer host did not start in time'));
      }, START_TIMEOUT_MS);
      proc.on('message', (raw: unknown) => {
        const msg = raw as FromHost;
        if (msg?.t === 'ready') {
          clearTimeout(timer);
          this.#log.info('renderer host started', { pid: msg.pid, sandbox: msg.sandbox, uid: user?.uid ?? process.getuid?.() });
          resolve();
        } else this.#onMessage(host, msg);
      });
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the renderer host exited during start (${signal ?? `status ${code}`})`));
      });
      proc.on('error', (err) => this.#log.error('renderer host process error', { err }));
    });
    proc.once('exit', (code, signal) => {
      host.cleanedUp = this.#onExit(host, code, signal);
    });
    host.send({ t: 'start', settings: { ...this.#settings, dir } });
    try {
      await ready;
    } catch (err) {
      this.#backOff();
      throw err;
    }
    this.#current = host;
    return host;
  }

  #onMessage(host: Host, msg: FromHost): void {
    if ((msg?.t === 'rendered' || msg?.t === 'failed') && typeof msg.pagesReplaced === 'number') {
      host.pagesReplaced = Math.max(host.pagesReplaced, msg.pagesReplaced);
    }
    switch (msg?.t) {
      case 'rendered': {
        const bytes = msg.bytes instanceof Uint8Array ? msg.bytes : new Uint8Array(0);
        const html = typeof msg.html === 'string' ? { html: msg.html } : {};
        host.pending.get(msg.id)?.resolve({ bytes, contentType: String(msg.contentType), ...html });
        break;
      }
      case 'failed': {
        const code = (FAILURE_CODES.includes(msg.code) ? msg.code : 'RENDER_ERROR') as FailureCodeValue;
        host.pending.get(msg.id)?.reject(new RenderFailure(code, String(msg.message)));
        break;
      }
      case 'asset?':
        void this.#answerAsset(host, msg.reqId, msg.jobId, String(msg.name));
        break;
      case 'pong':
        host.pings.get(msg.id)?.(msg.error);
        break;
      case 'log': {
        const level = ['debug', 'info', 'warn', 'error'].includes(msg.level) ? msg.level : 'info';
        this.#log[level](String(msg.msg), { hostPid: host.pid, ...msg.fields });
        break;
      }
    }
  }

  async #answerAsset(host: Host, reqId: number, jobId: number, name: string): Promise<void> {
    let asset: { bytes: Uint8Array; contentType: string } | null = null;
    try {
      asset = (await host.pending.get(jobId)?.job.assets?.get(name)) ?? null;
    } catch (err) {
      this.#log.warn('an asset could not be read for the renderer', { name, err });
    }
    host.send({ t: 'asset', reqId, asset });
  }

  async #onExit(host: Host, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const lived = Date.now() - host.startedAt;
    const why = host.killedBecause ?? (code === HOST_FAULT_EXIT ? 'hit an error it could not recover from' : 'exited');
    const expected = this.#closed && code === 0;
    if (!expected) {
      this.#crashes++;
      this.#log.error('renderer host ended', { pid: host.pid, code, signal, why, livedMs: lived, jobs: host.pending.size });
    }
    for (const p of [...host.pending.values()]) {
      p.reject(new RenderFailure('RENDER_CRASHED', `The renderer ${why === 'exited' ? 'stopped' : why} during this render.`));
    }
    for (const ping of host.pings.values()) ping('the renderer host ended');
    host.kill(why); // whatever it left behind in its process group
    await rm(host.dir, { recursive: true, force: true, maxRetries: 3 }).catch((err: unknown) => {
      this.#log.warn('could not remove the renderer host directory', { dir: host.dir, err });
    });
    if (this.#current !== host) return;
    this.#pagesReplacedBefore += host.pagesReplaced;
    this.#current = undefined;
    if (this.#closed) return;
    if (lived >= HEALTHY_AFTER_MS) this.#quickCrashes = 0;
    this.#backOff();
    // Start the next host now (after the back-off), so the next job does not pay for it.
    this.host().catch((err: unknown) => this.#log.error('renderer host restart failed', { err }));
  }

  #backOff(): void {
    const base = this.#opts.restartBaseMs ?? 500;
    const max = this.#opts.restartMaxMs ?? 30_000;
    // The first crash restarts at once; each further quick one waits twice as long as the last.
    const delay = this.#quickCrashes === 0 ? 0 : Math.min(max, base * 2 ** (this.#quickCrashes - 1));
    this.#notBefore = Date.now() + delay;
    this.#quickCrashes++;
  }
}
