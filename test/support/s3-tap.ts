import { request } from 'node:http';
import { listenOnLoopback, type LoopbackServer } from './loopback-server.ts';

/**
 * A transparent HTTP relay in front of the real S3 server, for one app under test (its
 * S3_ENDPOINT points here). It forwards every request unchanged (the SigV4 signature covers the
 * Host header, which is passed as sent) and can be armed once: when S3 has answered a PUT with
 * 2xx — the object is stored — the relay runs `onStored` (e.g. SIGKILLs the app) before the
 * answer reaches the app. That is the real "file uploaded, result event not yet written" window,
 * hit every time, with nothing in the app built for the test.
 */
export class S3Tap {
  #server: LoopbackServer | undefined;
  #armed: ((key: string) => Promise<void>) | undefined;
  /** The object keys (bucket/key path) whose PUT fired the armed action. */
  readonly firedOn: string[] = [];
  port = 0;

  readonly upstream: string;
  constructor(upstream: string) {
    this.upstream = upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next PUT that S3 stores runs `onStored` with its path, and its answer never reaches the app. */
  armOnce(onStored: (path: string) => Promise<void>): void {
    this.#armed = onStored;
  }

  async start(): Promise<this> {
    const up = new URL(this.upstream);
    this.#server = await listenOnLoopback((req, res) => {
      const forward = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
        const armed = this.#armed;
        const stored = req.method === 'PUT' && (upRes.statusCode ?? 500) < 300 && !(req.url ?? '').includes('uploadId');
        if (armed && stored) {
          this.#armed = undefined;
          const path = (req.url ?? '').split('?')[0] ?? '';
          this.firedOn.push(path);
          upRes.resume();
          void armed(path).finally(() => res.destroy());
          return;
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    this.port = this.#server.port;
    return this;
  }

  async stop(): Promise<void> {
    await this.#server?.close();
  }
}
