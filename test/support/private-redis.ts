import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { waitFor } from '@pressroom/testing';
import { freePort } from './service-process.ts';

/**
 * A Redis of one test's own, on its own port and folder, without persistence
 * (`--save '' --appendonly no`): stopping it loses everything, as a restart of such a Redis
 * does in production. Never the shared REDIS_URL: tests that flush or stop Redis use this.
 */
export class PrivateRedis {
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #dir = '';
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.port ||= await freePort();
    this.#dir ||= await mkdtemp(join(tmpdir(), 'pressroom-private-redis-'));
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.#dir],
      { stdio: 'ignore' },
    );
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await waitFor(async () => (await this.command((r) => r.ping()).catch(() => undefined)) === 'PONG', {
      timeoutMs: 15_000,
      intervalMs: 100,
      description: `private redis on ${this.port}`,
    });
    return this;
  }

  /** Runs one command on a short-lived connection. */
  async command<T>(run: (r: Redis) => Promise<T>): Promise<T> {
    const r = new Redis(this.url, { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    r.on('error', () => undefined); // a refused connection is the answer (the server is not up yet)
    try {
      await r.connect();
      return await run(r);
    } finally {
      r.disconnect();
    }
  }

  flushAll(): Promise<unknown> {
    return this.command((r) => r.flushall());
  }

  /** Stops the server (SIGTERM to this child only) and waits for it to exit. */
  async stop(): Promise<void> {
    if (!this.#child || this.#child.exitCode !== null) return;
    this.#child.kill('SIGTERM');
    await this.#exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true });
  }
}
