import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server and UDP socket that only count who reached them. Anything a rendered page
 * manages to send to loopback shows up here: requests, bare TCP connections (preconnect),
 * WebSocket upgrades and UDP datagrams (WebRTC STUN).
 */
export interface Canary {
  port: number;
  udpPort: number;
  hits(): { requests: string[]; connections: number; upgrades: number; datagrams: number };
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  const requests: string[] = [];
  let connections = 0;
  let upgrades = 0;
  let datagrams = 0;
  const http = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
    res.end('CANARY-SECRET');
  });
  http.on('connection', () => connections++);
  http.on('upgrade', (_req, socket) => {
    upgrades++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const udp = createSocket('udp4');
  udp.on('message', () => datagrams++);
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    udpPort: udp.address().port,
    hits: () => ({ requests: [...requests], connections, upgrades, datagrams }),
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
}
