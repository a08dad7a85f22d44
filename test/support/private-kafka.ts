import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './service-process.ts';

const run = promisify(execFile);
const infra = join(import.meta.dirname, '..', '..', 'infra');

/**
 * A Kafka broker of the test's own (own ports, own data dir), started and stopped through
 * infra/kafka-up.sh / kafka-down.sh, for fault tests that stop or kill the broker: the shared
 * broker is never touched. `stop` keeps the data dir, so `start` again is a broker restart.
 */
export class PrivateKafka {
  #dir = '';
  #env: Record<string, string> = {};
  brokers = '';

  async start(): Promise<this> {
    if (!this.#dir) {
      this.#dir = await mkdtemp(join(tmpdir(), 'pressroom-kafka-'));
      const [port, controller] = [await freePort(), await freePort()];
      this.#env = {
        KAFKA_PORT: String(port),
        KAFKA_CONTROLLER_PORT: String(controller),
        KAFKA_DIR: this.#dir,
        KAFKA_HEAP: '512m',
      };
      this.brokers = `127.0.0.1:${port}`;
    }
    await run(join(infra, 'kafka-up.sh'), [], { env: { ...process.env, ...this.#env }, timeout: 180_000 });
    return this;
  }

  /** SIGTERM, as an orchestrator stops it (SIGKILL after the grace period). */
  async stop(): Promise<void> {
    if (!this.#dir) return;
    await run(join(infra, 'kafka-down.sh'), [], { env: { ...process.env, ...this.#env, KAFKA_STOP_TIMEOUT: '30' }, timeout: 60_000 });
  }

  /**
   * Freezes the broker (SIGSTOP): connections stay open, nothing is answered. A produce request
   * sent meanwhile waits in the socket and is written when it thaws: a write that lands late, after
   * the producer's caller gave up, and without it ever having failed.
   */
  async freeze(): Promise<void> {
    process.kill(await this.#pid(), 'SIGSTOP');
  }

  async thaw(): Promise<void> {
    process.kill(await this.#pid(), 'SIGCONT');
  }

  async #pid(): Promise<number> {
    const pid = Number((await readFile(join(this.#dir, 'kafka.pid'), 'utf8')).trim());
    if (!Number.isInteger(pid) || pid <= 0) throw new Error('the private broker is not running');
    return pid;
  }

  /** Stops the broker and removes its data dir. */
  async destroy(): Promise<void> {
    await this.thaw().catch(() => {});
    await this.stop();
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true });
  }
}
