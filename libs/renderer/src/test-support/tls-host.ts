import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { lookup } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { judgeAddress } from '@pressroom/domain';

/** A self-signed certificate for `names` (it is its own trust root), made with openssl. */
export function selfSignedCertificate(names: string[]): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pressroom-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${names[0]}`,
        '-addext',
        `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An https server that answers every request with `body` and records who reached it and how. */
export interface TlsHost {
  port: number;
  hits(): { path: string; host: string | undefined; servername: string | false }[];
  connections(): number;
  close(): Promise<void>;
}

export async function startTlsHost(opts: {
  address: string;
  port: number;
  cert: { cert: string; key: string };
  body: string;
  contentType?: string;
  /** Paths answered with a 302 to the given Location instead of `body`. */
  redirects?: Record<string, string>;
}): Promise<TlsHost> {
  const hits: { path: string; host: string | undefined; servername: string | false }[] = [];
  let connections = 0;
  const server: Server = createServer({ cert: opts.cert.cert, key: opts.cert.key }, (req, res) => {
    hits.push({ path: req.url ?? '', host: req.headers.host, servername: (req.socket as TLSSocket).servername ?? false });
    const location = opts.redirects?.[req.url ?? ''];
    if (location) return void res.writeHead(302, { location, 'access-control-allow-origin': '*' }).end();
    res.writeHead(200, { 'content-type': opts.contentType ?? 'text/plain', 'access-control-allow-origin': '*' });
    res.end(opts.body);
  });
  // Counted before TLS: a handshake that fails still reached this address.
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.address, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => [...hits],
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A name the system resolver maps to loopback, other than `localhost` (which the policy refuses
 * by name): the DNS-rebinding tests need one, so that any fetch that resolves the name again
 * (instead of dialling the vetted address) really lands on a loopback canary.
 */
export async function loopbackName(): Promise<{ name: string; address: string }> {
  const candidates = ['ip6-localhost', 'ip6-loopback', 'localhost.localdomain', 'vm', 'runsc', 'localhost6'];
  for (const name of candidates) {
    const answer = await lookup(name).catch(() => undefined);
    if (answer && judgeAddress(answer.address).scope === 'loopback') return { name, address: answer.address };
  }
  throw new Error(`none of ${candidates.join(', ')} resolves to loopback here; add one to /etc/hosts`);
}

/** A non-loopback address of this machine in a private range (RFC 1918 or unique-local). */
export function privateInterfaceAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const nic of list ?? []) {
      if (!nic.internal && judgeAddress(nic.address).scope === 'private') return nic.address;
    }
  }
  throw new Error('this machine has no private (RFC 1918 / unique-local) interface address');
}
