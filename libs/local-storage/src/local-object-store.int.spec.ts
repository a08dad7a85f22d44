import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '@pressroom/core';
import { errorMapper } from '@pressroom/ingress';
import { objectStoreContract } from '@pressroom/testing';
import { createLocalObjectStore, type LocalObjectStore } from './local-object-store.ts';
import { localFilesRoute } from './local-files-route.ts';

/** A temp folder and a real Koa server on an ephemeral port, as the ingress mounts the route. */
async function serve(): Promise<{ store: LocalObjectStore; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'pressroom-files-'));
  // The port is known only once listening, and the links need it: listen first, then hand
  // the server Koa's callback (app.listen would freeze the middleware list too early).
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const store = createLocalObjectStore({ dir, publicBaseUrl: `http://127.0.0.1:${port}/`, signingSecret: randomBytes(32).toString('hex') });
  const app = new Koa();
  app.use(errorMapper(silentLogger)); // as the ingress mounts it: refusals in the one error shape
  app.use(localFilesRoute(store).routes());
  const handle = app.callback();
  server.on('request', (req, res) => void handle(req, res));
  return {
    store,
    async dispose() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

objectStoreContract('local disk behind Koa', { createSpace: serve, signatureParam: 'signature' });

describe('localFilesRoute over HTTP', () => {
  it('sends the headers a browser needs, and the same 403 JSON for every refusal', async () => {
    const space = await serve();
    const { store } = space;
    try {
      // Given a stored PNG and its link
      await store.put('acme/0190a8f2-0000-7000-8000-000000000001.PNG', new Uint8Array([137, 80, 78, 71]), 'image/png');
      const url = await store.signedGetUrl('acme/0190a8f2-0000-7000-8000-000000000001.PNG', 3600);
      // When it is fetched
      const ok = await fetch(url);
      // Then
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe('image/png');
      expect(ok.headers.get('content-length')).toBe('4');
      expect(ok.headers.get('content-disposition')).toBe('inline; filename="0190a8f2-0000-7000-8000-000000000001.PNG"');
      expect(ok.headers.get('cache-control')).toMatch(/^private, max-age=(3599|3600)$/);
      expect(new Uint8Array(await ok.arrayBuffer())).toEqual(new Uint8Array([137, 80, 78, 71]));
      // and a HEAD answers the same headers without a body
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe('4');

      const base = new URL(url);
      const missing = new URL(url);
      missing.pathname = '/v1/files/acme/nothing-here.pdf';
      const refusals = [
        `${base.origin}${base.pathname}`, // no query at all
        `${base.origin}${base.pathname}?expires=abc&signature=${base.searchParams.get('signature')}`,
        missing.toString(), // valid-looking signature for a file that does not exist
        `${base.origin}/v1/files/..%2F..%2Fetc%2Fpasswd?expires=9999999999&signature=${'0'.repeat(64)}`,
        `${base.origin}/v1/files/%E0%A4%A?expires=9999999999&signature=${'0'.repeat(64)}`,
      ];
      for (const refused of refusals) {
        const res = await fetch(refused);
        expect(res.status, refused).toBe(403);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(await res.json()).toEqual({
          message: 'This link is invalid or has expired.',
          error: { code: 'FORBIDDEN', message: 'This link is invalid or has expired.' },
        });
      }
    } finally {
      await space.dispose();
    }
  });
});

describe('a render file downloaded right after its put (RECENT_FILES)', () => {
  const key = 'acme/0190a8f2-0000-7000-8000-00000000000a.pdf';
  const pdf = (text: string) => new TextEncoder().encode(`%PDF-1.7 ${text}`);
  const body = async (url: string) => {
    const res = await fetch(url);
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
  };

  it('is answered from memory, and an overwrite or a delete through the store shows at once', async () => {
    const space = await serve();
    const { store } = space;
    try {
      await store.put(key, pdf('first'), 'application/pdf');
      const url = await store.signedGetUrl(key, 3600);
      expect(await body(url)).toEqual({ status: 200, text: '%PDF-1.7 first', type: 'application/pdf' });
      await store.put(key, pdf('second'), 'application/pdf');
      expect(await body(url)).toEqual({ status: 200, text: '%PDF-1.7 second', type: 'application/pdf' });
      await store.delete(key);
      expect((await body(url)).status).toBe(410);
      // A failed link is refused before memory is asked: the signature is the credential.
      await store.put(key, pdf('third'), 'application/pdf');
      expect((await fetch(url.replace(/signature=[0-9a-f]{64}/, `signature=${'0'.repeat(64)}`))).status).toBe(403);
    } finally {
      await space.dispose();
    }
  });

  it('keeps none with maxBytes 0, and never a request payload: those are read from the disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-files-'));
    try {
      const kept = createLocalObjectStore({ dir: join(dir, 'a'), publicBaseUrl: 'http://127.0.0.1:1/', signingSecret: 'k' });
      const none = createLocalObjectStore({
        dir: join(dir, 'b'),
        publicBaseUrl: 'http://127.0.0.1:1/',
        signingSecret: 'k',
        recentFiles: { maxBytes: 0, ttlMs: 60_000 },
      });
      const payload = 'acme/0190a8f2-0000-7000-8000-00000000000a.payload.json';
      const opened = async (store: LocalObjectStore, k: string) => {
        const u = new URL(await store.signedGetUrl(k, 3600));
        return store.openSignedFile(k, u.searchParams.get('expires'), u.searchParams.get('signature'));
      };
      for (const store of [kept, none]) {
        await store.put(key, pdf('x'), 'application/pdf');
        await store.put(payload, new TextEncoder().encode('{"html":"<p>x</p>"}'), 'application/json');
      }
      // The files removed behind the stores' backs (nothing does that while the service runs):
      // only the kept render file still opens, from memory.
      await rm(join(dir, 'a', 'objects'), { recursive: true });
      await rm(join(dir, 'b', 'objects'), { recursive: true });
      expect(await opened(kept, key)).toMatchObject({ contentType: 'application/pdf', size: pdf('x').byteLength });
      expect(await opened(kept, payload)).toBe('gone');
      expect(await opened(none, key)).toBe('gone');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
