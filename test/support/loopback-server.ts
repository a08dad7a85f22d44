import { createServer, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';

/** A test's HTTP server on 127.0.0.1 at a free port. */
export interface LoopbackServer {
  readonly port: number;
  /** Destroys the open connections (a held request never keeps it up), then closes the server. */
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1 at a port the system picks; resolves once it listens. */
export async function listenOnLoopback(handler: RequestListener): Promise<LoopbackServer> {
  const server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
