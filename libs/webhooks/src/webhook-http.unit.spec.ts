import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from './webhook-http.ts';
import type { Lookup } from './webhook-target.ts';

// Loopback only: a receiver that counts calls stands in for the internal service an attacker aims at.
let server: Server;
let port = 0;
let hits = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    res.writeHead(req.url === '/redirect' ? 302 : 200, { location: 'http://127.0.0.1:1/elsewhere' }).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const strict = { allowPrivate: false, allowHttp: true, allowedPorts: [] };
const post = (url: string, policy = strict, lookup?: Lookup) =>
  postWebhook({ url, headers: {}, body: '{}', timeoutMs: 2000, policy, ...(lookup ? { lookup } : {}) });

describe('postWebhook', () => {
  it('refuses at connect time a host that resolved to a public address at check time and to loopback now (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding: Lookup = async () => [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1' }];
    const before = hits;
    const result = await post(`http://rebind.test:${port}/hook`, strict, rebinding);
    expect(result).toMatchObject({ kind: 'refused', message: expect.stringMatching(/127\.0\.0\.1.*not allowed/) });
    expect(calls).toBe(2); // checked, then resolved again by the socket itself
    expect(hits).toBe(before);
  });

  it.each(['::127.0.0.1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::1'])(
    'refuses at connect time a host that now resolves to %s (loopback inside an IPv6 form)',
    async (wrapped) => {
      let calls = 0;
      const rebinding: Lookup = async () => [{ address: calls++ === 0 ? '93.184.216.34' : wrapped }];
      const before = hits;
      const result = await post(`http://rebind.test:${port}/hook`, strict, rebinding);
      expect(result).toMatchObject({ kind: 'refused', message: expect.stringContaining(`${wrapped}, which is not allowed`) as unknown });
      expect(hits).toBe(before);
    },
  );

  it('refuses a private IP literal without dialling it', async () => {
    const before = hits;
    expect(await post(`http://127.0.0.1:${port}/hook`)).toMatchObject({ kind: 'refused' });
    expect(hits).toBe(before);
  });

  it('dials the vetted address when private targets are allowed, and does not follow a redirect', async () => {
    const allowPrivate = { ...strict, allowPrivate: true };
    const local: Lookup = async () => [{ address: '127.0.0.1' }];
    expect(await post(`http://receiver.test:${port}/ok`, allowPrivate, local)).toEqual({ kind: 'response', statusCode: 200 });
    const before = hits;
    expect(await post(`http://127.0.0.1:${port}/redirect`, allowPrivate)).toMatchObject({ kind: 'response', statusCode: 302 });
    expect(hits).toBe(before + 1); // the Location was not fetched
  });

  it('reports a closed port as a connection error', async () => {
    expect(await post('http://127.0.0.1:1/x', { ...strict, allowPrivate: true })).toMatchObject({ kind: 'connection-error' });
  });
});
