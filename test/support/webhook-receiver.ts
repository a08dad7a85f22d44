import type { IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback, type LoopbackServer } from './loopback-server.ts';
import { waitFor } from '@pressroom/testing';

export interface ReceivedCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A caller's webhook endpoint on loopback: records every POST and answers 200. */
export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  #server: LoopbackServer | undefined;
  port = 0;

  async start(): Promise<this> {
    this.#server = await listenOnLoopback((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* keep the raw text */
        }
        this.calls.push({ path: req.url ?? '/', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    this.port = this.#server.port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async waitForCall(path: string, timeoutMs = 60_000): Promise<ReceivedCall> {
    return waitFor(() => this.calls.find((c) => c.path === path), { timeoutMs, description: `a webhook POST to ${path}` });
  }

  async stop(): Promise<void> {
    await this.#server?.close();
  }
}
