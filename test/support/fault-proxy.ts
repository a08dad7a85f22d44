import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type FaultMode = 'pass' | 'refuse' | 'hang';

/**
 * A TCP proxy in front of a real server, switchable to fail the way a network fails:
 * `refuse` stops listening (connects get ECONNREFUSED, open connections are reset),
 * `hang` accepts connections and forwards nothing either way (requests time out),
 * `pass` forwards again. A real-network fault injector: the client and the server are the real ones.
 */
export class FaultProxy {
  #server: Server | undefined;
  #mode: FaultMode = 'pass';
  readonly #sockets = new Set<Socket>();
  port = 0;

  private readonly upstream: { host: string; port: number };
  constructor(upstream: { host: string; port: number }) {
    this.upstream = upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    await this.#listen();
    return this;
  }

  async set(mode: FaultMode): Promise<void> {
    if (mode === this.#mode) return;
    const previous = this.#mode;
    this.#mode = mode;
    if (mode === 'refuse') {
      await this.#close();
    } else {
      // Leaving a fault: whatever hung or was cut is reset, as after a server restart.
      if (previous === 'hang') this.#dropAll();
      if (!this.#server) await this.#listen();
    }
  }

  async stop(): Promise<void> {
    this.#mode = 'refuse';
    await this.#close();
  }

  #listen(): Promise<void> {
    const server = createServer((client) => this.#accept(client));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        const address = server.address();
        if (address && typeof address === 'object') this.port = address.port;
        resolve();
      });
    });
  }

  #accept(client: Socket): void {
    this.#sockets.add(client);
    client.on('close', () => this.#sockets.delete(client));
    client.on('error', () => client.destroy());
    if (this.#mode === 'hang') return; // accepted, and never answered
    const upstream = createConnection(this.upstream);
    this.#sockets.add(upstream);
    upstream.on('close', () => {
      this.#sockets.delete(upstream);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
    upstream.on('error', () => upstream.destroy());
    // Forward only while passing: a switch to `hang` freezes open connections too.
    client.on('data', (chunk) => {
      if (this.#mode === 'pass') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (this.#mode === 'pass') client.write(chunk);
    });
  }

  #dropAll(): void {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  async #close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.#dropAll();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
