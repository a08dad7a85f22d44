import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinnedFetchError, pinnedFetch } from './pinned-fetch.ts';
import { selfSignedCertificate } from './test-support/tls-host.ts';

// The fetch the network guard makes for an allowed host: it dials the address it is given, under
// the URL's name (a name that resolves nowhere here proves no lookup happened), within bounds.
const NAME = 'assets.pinned.invalid';
let server: Server;
let port = 0;
let cert: { cert: string; key: string };
const seen: {
  path: string;
  host?: string | undefined;
  servername: string | false | null;
  cookie?: string | undefined;
  encoding?: string | undefined;
}[] = [];

beforeAll(async () => {
  cert = selfSignedCertificate([NAME]);
  server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    seen.push({
      path: req.url ?? '',
      host: req.headers.host,
      servername: (req.socket as TLSSocket).servername,
      ...(req.headers.cookie ? { cookie: req.headers.cookie } : {}),
      ...(req.headers['accept-encoding'] ? { encoding: req.headers['accept-encoding'] } : {}),
    });
    if (req.url === '/big') return res.writeHead(200).end(Buffer.alloc(64 * 1024, 1));
    if (req.url === '/bomb') return res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(8 * 1024 * 1024)));
    if (req.url === '/gzip')
      return res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(gzipSync('zipped text'));
    if (req.url === '/slow') return; // never answers
    res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'a=1', 'x-kept': 'yes' }).end(`hello ${req.method}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const get = (path: string, over: Partial<Parameters<typeof pinnedFetch>[0]> = {}) =>
  pinnedFetch({
    url: new URL(`https://${NAME}:${port}${path}`),
    addresses: ['127.0.0.1'],
    method: 'GET',
    headers: { accept: '*/*', cookie: 'session=tenant-a', 'accept-encoding': 'zstd' },
    timeoutMs: 5_000,
    maxBytes: 16 * 1024,
    extraCa: [cert.cert],
    ...over,
  });

describe('pinnedFetch', () => {
  it('dials the given address, keeping the name for TLS (SNI, certificate) and Host; sends and keeps no cookies', async () => {
    const res = await get('/hello');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello GET');
    expect(res.headers).toMatchObject({ 'content-type': 'text/plain', 'x-kept': 'yes' });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(seen.at(-1)).toEqual({ path: '/hello', host: `${NAME}:${port}`, servername: NAME, encoding: 'gzip, deflate, br' });
  });

  it('falls back to the next vetted address when the first cannot be reached', async () => {
    // 127.0.0.2 has no listener on this port; 127.0.0.1 has
    const res = await get('/hello', { addresses: ['127.0.0.2', '127.0.0.1'] });
    expect(res.body.toString()).toBe('hello GET');
  });

  it('refuses a certificate it does not trust (no trust root for the test CA)', async () => {
    await expect(get('/hello', { extraCa: [] })).rejects.toBeInstanceOf(PinnedFetchError);
  });

  it('decompresses, and bounds the decompressed size', async () => {
    const res = await get('/gzip');
    expect(res.body.toString()).toBe('zipped text');
    expect(res.headers['content-encoding']).toBeUndefined();
    await expect(get('/bomb')).rejects.toThrow(/larger than 16384 bytes/);
    await expect(get('/big')).rejects.toThrow(/larger than 16384 bytes/);
  });

  it('gives up after its time limit', async () => {
    await expect(get('/slow', { timeoutMs: 300 })).rejects.toThrow(/within 300 ms/);
  });

  it('sends a POST body', async () => {
    const res = await get('/hello', { method: 'POST', body: Buffer.from('x=1'), headers: { 'content-type': 'text/plain' } });
    expect(res.body.toString()).toBe('hello POST');
  });
});
