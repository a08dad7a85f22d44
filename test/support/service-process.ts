import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { waitFor } from '@pressroom/testing';

const root = join(import.meta.dirname, '..', '..');
// How `npm start` runs an app (scripts/run-ts.mjs): where Node strips types itself the sources run
// as they are, with no transpiler, loader thread or source-mapped stacks in the process; elsewhere
// (Node 20) under tsx's loader, registered in the same process. Tests and benchmarks measure what
// ships, not tsx (which cost the service CPU and memory that production does not pay).
const runTs = join(root, 'scripts', 'run-ts.mjs');

/**
 * Plans whose rate and in-flight quotas never bind: load, fault and ledger tests send and poll
 * far faster than a plan allows, and a 429 there would prove nothing about what they test. The
 * quota tests (embedded-quotas, distributed-template-conflicts) set PRESSROOM_PLANS themselves.
 */
const UNLIMITED_PLANS = { PRESSROOM_PLANS: unlimitedPlans() };

/** PRESSROOM_PLANS with unbinding rate and in-flight quotas, plus what a test sets (e.g. a short retention). */
export function unlimitedPlans(extra: { standard?: object; high?: object } = {}): string {
  const unlimited = { requestsPerSecond: 100_000, burst: 100_000, concurrentRenders: 100_000 };
  return JSON.stringify({ standard: { ...unlimited, ...extra.standard }, high: { ...unlimited, ...extra.high } });
}

export type AppName = 'standalone' | 'ingress' | 'render-worker' | 'status-projector' | 'webhook-dispatcher';

/** One Pressroom app running as its own OS process, as in production. */
export class AppProcess {
  /** stdout and stderr lines, in arrival order. */
  readonly output: string[] = [];
  /** The stdout lines alone: the JSON log stream. */
  readonly stdout: string[] = [];
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();

  readonly app: AppName;
  readonly env: Record<string, string>;
  readonly port: number;
  /** Flags for Node itself (e.g. --cpu-prof, which Node 20 refuses in NODE_OPTIONS). */
  readonly nodeArgs: string[];
  constructor(app: AppName, env: Record<string, string>, port: number, nodeArgs: string[] = []) {
    this.nodeArgs = nodeArgs;
    this.app = app;
    this.env = env;
    this.port = port;
  }

  /** The process id of the app (the leader of its process group: its renderer host and Chromium run under it). */
  get pid(): number {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error(`${this.app} is not started`);
    return pid;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the app and waits until `/readyz` (or only `/healthz`, for an app whose dependencies are down) answers 200. */
  async start(opts: { until?: 'readyz' | 'healthz' } = {}): Promise<this> {
    this.output.length = 0;
    this.stdout.length = 0;
    const child = spawn(process.execPath, [...this.nodeArgs, runTs, join(root, 'apps', this.app, 'src', 'main.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...UNLIMITED_PLANS, ...this.env, PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a crash (kill()) takes the app and everything it started at once.
      detached: true,
    });
    this.#child = child;
    const lines = (chunk: Buffer) => chunk.toString('utf8').split('\n').filter(Boolean);
    // PRESSROOM_TEST_APP_LOGS=<dir>: every line of the app also goes to <dir>/<app>-<port>.log, to
    // read after a fault test that failed (the lines in memory go with the test process).
    const logDir = process.env.PRESSROOM_TEST_APP_LOGS;
    const keep = logDir
      ? (l: string[]) => {
          mkdirSync(logDir, { recursive: true });
          appendFileSync(join(logDir, `${this.app}-${this.port}.log`), l.map((x) => `${x}\n`).join(''));
        }
      : () => {};
    // stdout whole lines only (a JSON line may arrive in two chunks).
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      const l = parts.filter(Boolean);
      this.output.push(...l);
      this.stdout.push(...l);
      keep(l);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const l = lines(chunk);
      this.output.push(...l);
      keep(l);
    });
    // 'close' fires when every holder of the output pipes (the app and what it started) is gone.
    this.#exited = new Promise((resolve) => child.once('close', () => resolve()));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${this.app} exited with ${child.exitCode}:\n${this.output.slice(-30).join('\n')}`);
        const res = await fetch(`${this.url}/${opts.until ?? 'readyz'}`).catch(() => undefined);
        return res?.status === 200;
      },
      { timeoutMs: 90_000, intervalMs: 200, description: `${this.app} to be ready` },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n--- ${this.app} output ---\n${this.output.slice(-40).join('\n')}`);
    });
    return this;
  }

  /** Graceful stop (SIGTERM), as an orchestrator would. */
  async stop(): Promise<void> {
    if (!this.#child || this.#child.exitCode !== null) return;
    this.#child.kill('SIGTERM'); // the app shuts down gracefully
    await Promise.race([this.#exited, new Promise((r) => setTimeout(r, 15_000))]);
    await this.kill(); // whatever is left of the group
  }

  /** A crash: SIGKILL, no chance to finish or commit anything. */
  async kill(): Promise<void> {
    if (!this.#child) return;
    this.#signal('SIGKILL');
    await this.#exited;
  }

  #signal(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      /* already gone */
    }
  }

  /** Resolves when a JSON log line matches (e.g. a worker starting a render). */
  async waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    return waitFor(
      () => {
        for (const line of this.output) {
          if (!line.startsWith('{')) continue;
          try {
            const parsed = JSON.parse(line) as Record<string, unknown>;
            if (match(parsed)) return parsed;
          } catch {
            /* not a log line */
          }
        }
        return undefined;
      },
      { timeoutMs, intervalMs: 50, description: `a log line of ${this.app}` },
    );
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
