import type { IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback, type LoopbackServer } from './loopback-server.ts';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '@pressroom/testing';

/** What the receiver does with one call: answer (maybe after a stall), or hold the request open without answering. */
export type Reply = { status: number; headers?: Record<string, string>; stallMs?: number } | { hold: true };

export interface Call {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as a receiver must verify it. */
  raw: string;
  body: any;
  at: number;
}

/**
 * A caller's webhook endpoint on loopback whose answers are scripted per path: each call takes
 * the next reply of its path's script, the last one repeating (200 when none is set). Records
 * every call. Held requests are released at `stop`.
 */
export class ScriptedReceiver {
  readonly calls: Call[] = [];
  readonly #scripts = new Map<string, Reply[]>();
  #server: LoopbackServer | undefined;
  port = 0;

  script(path: string, ...replies: Reply[]): string {
    this.#scripts.set(path, replies);
    return this.url(path);
  }

  async start(): Promise<this> {
    this.#server = await listenOnLoopback((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
        }
        const path = req.url ?? '/';
        this.calls.push({ path, headers: req.headers, raw, body, at: Date.now() });
        const script = this.#scripts.get(path) ?? [];
        const reply = script.length > 1 ? script.shift()! : (script[0] ?? { status: 200 });
        if ('hold' in reply) return; // never answered: the caller's time limit must end it
        const answer = () => {
          if (!res.destroyed) res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end('{}');
        };
        if (reply.stallMs) setTimeout(answer, reply.stallMs).unref();
        else answer();
      });
    });
    this.port = this.#server.port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  callsTo(path: string): Call[] {
    return this.calls.filter((c) => c.path === path);
  }

  async waitForCalls(path: string, n: number, timeoutMs = 60_000): Promise<Call[]> {
    return waitFor(() => (this.callsTo(path).length >= n ? this.callsTo(path) : undefined), {
      timeoutMs,
      description: `${n} webhook POST(s) to ${path}`,
    });
  }

  async stop(): Promise<void> {
    await this.#server?.close();
  }
}

/** Verifies a call the way a receiver would, with the `standardwebhooks` package (not our code). Throws when invalid. */
export function verifyWithStandardWebhooks(secret: string, call: Call): unknown {
  const h = (name: string) => String(call.headers[name] ?? '');
  return new Webhook(secret).verify(call.raw, {
    'webhook-id': h('webhook-id'),
    'webhook-timestamp': h('webhook-timestamp'),
    'webhook-signature': h('webhook-signature'),
  });
}
