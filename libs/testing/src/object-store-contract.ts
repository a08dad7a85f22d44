import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ObjectStore } from '@pressroom/core';
import { waitFor } from './wait.ts';
import { spacesPerTest } from './contract-support.ts';

/** One store over storage owned by one test (a temp folder and server, a fresh bucket). */
export interface ObjectStoreSpace {
  store: ObjectStore;
  dispose(): Promise<void>;
}

export interface ObjectStoreContractOptions {
  createSpace(): Promise<ObjectStoreSpace>;
  /** The query parameter that carries the URL's signature (`signature`, `X-Amz-Signature`). */
  signatureParam: string;
}

interface Fetched {
  status: number;
  contentType: string | null;
  body: Buffer;
}

async function get(url: string): Promise<Fetched> {
  const res = await fetch(url);
  return { status: res.status, contentType: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

/** Bytes that start with a marker we can look for in a refusal's body. */
function payload(size = 4096): { bytes: Uint8Array; marker: Buffer } {
  const marker = Buffer.from(`PRESSROOM-${randomUUID()}`);
  return { bytes: new Uint8Array(Buffer.concat([marker, randomBytes(size)])), marker };
}

function flipLastChar(value: string): string {
  const last = value.at(-1);
  return value.slice(0, -1) + (last === '0' ? '1' : '0');
}

/** The behaviour every ObjectStore adapter must show (see the port's JSDoc). */
export function objectStoreContract(name: string, options: ObjectStoreContractOptions): void {
  describe(`ObjectStore contract: ${name}`, () => {
    const openSpace = spacesPerTest(() => options.createSpace());
    const open = async () => (await openSpace()).store;
    const keyFor = (ext: string) => `tenant-contract/${randomUUID()}${ext}`;

    it('serves the exact bytes and content type through a signed URL', async () => {
      const store = await open();
      const pdf = payload(1 << 20);
      const png = payload();
      const [pdfKey, pngKey] = [keyFor('.pdf'), keyFor('.PNG')];
      await store.put(pdfKey, pdf.bytes, 'application/pdf');
      await store.put(pngKey, png.bytes, 'image/png');
      const gotPdf = await get(await store.signedGetUrl(pdfKey, 3600));
      const gotPng = await get(await store.signedGetUrl(pngKey, 3600));
      expect(gotPdf.status).toBe(200);
      expect(gotPdf.contentType).toMatch(/^application\/pdf\b/);
      expect(gotPdf.body.equals(Buffer.from(pdf.bytes))).toBe(true);
      expect(gotPng.status).toBe(200);
      expect(gotPng.contentType).toMatch(/^image\/png\b/);
      expect(gotPng.body.equals(Buffer.from(png.bytes))).toBe(true);
    });

    it('refuses a URL whose signature was changed, without the bytes', async () => {
      const store = await open();
      const { bytes, marker } = payload();
      const key = keyFor('.pdf');
      await store.put(key, bytes, 'application/pdf');
      const url = new URL(await store.signedGetUrl(key, 3600));
      const signature = url.searchParams.get(options.signatureParam);
      expect(signature, `the URL carries ${options.signatureParam}`).toBeTruthy();
      url.searchParams.set(options.signatureParam, flipLastChar(signature!));
      const res = await get(url.toString());
      expect(res.status).toBe(403);
      expect(res.body.includes(marker)).toBe(false);
    });

    it('refuses a URL whose key was changed, without either object', async () => {
      // Given two objects, and the signed URL of the first
      const store = await open();
      const a = payload();
      const b = payload();
      const idA = randomUUID();
      const idB = randomUUID();
      await store.put(`tenant-contract/${idA}.pdf`, a.bytes, 'application/pdf');
      await store.put(`tenant-contract/${idB}.pdf`, b.bytes, 'application/pdf');
      const url = await store.signedGetUrl(`tenant-contract/${idA}.pdf`, 3600);
      // When the URL is edited to point at the second
      const res = await get(url.replace(idA, idB));
      // Then it is refused
      expect(res.status).toBe(403);
      expect(res.body.includes(b.marker)).toBe(false);
      expect(res.body.includes(a.marker)).toBe(false);
    });

    it('refuses an expired URL (expiry is seconds-granular)', async () => {
      const store = await open();
      const { bytes, marker } = payload();
      const key = keyFor('.pdf');
      await store.put(key, bytes, 'application/pdf');
      const shortLived = await store.signedGetUrl(key, 1);
      const longLived = await store.signedGetUrl(key, 3600);
      // The one-second URL must be refused within a few seconds, never served after
      const refused = await waitFor(
        async () => {
          const res = await get(shortLived);
          return res.status === 403 ? res : undefined;
        },
        { timeoutMs: 6_000, intervalMs: 250, description: 'the 1-second URL to expire' },
      );
      expect(refused.body.includes(marker)).toBe(false);
      // while a URL issued at the same time with a longer life still works
      expect((await get(longLived)).status).toBe(200);
    });

    it('overwrites an object put twice under one key', async () => {
      const store = await open();
      const key = keyFor('.pdf');
      const first = payload();
      const second = payload(100);
      await store.put(key, first.bytes, 'application/pdf');
      await store.put(key, second.bytes, 'application/pdf');
      const res = await get(await store.signedGetUrl(key, 60));
      expect(res.status).toBe(200);
      expect(res.body.equals(Buffer.from(second.bytes))).toBe(true);
    });

    it('answers ping', async () => {
      const store = await open();
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('reads back the exact bytes and content type with get; delete removes them and is idempotent', async () => {
      const store = await open();
      const font = payload();
      const key = keyFor('.woff2');
      expect(await store.get(key)).toBeUndefined();
      await store.put(key, font.bytes, 'font/woff2');
      const got = await store.get(key);
      expect(got?.contentType).toBe('font/woff2');
      expect(Buffer.from(got!.bytes).equals(Buffer.from(font.bytes))).toBe(true);
      await store.delete(key);
      expect(await store.get(key)).toBeUndefined();
      await expect(store.delete(key)).resolves.toBeUndefined();
    });

    it('lists what it holds under a prefix, with the time each object was written (our own stores: retention)', async () => {
      const store = await open();
      if (!store.list) return; // a tenant's S3 connection is never listed: we never remove files there
      const prefix = `tenant-contract/${randomUUID()}`;
      const before = Date.now() - 5000; // servers keep seconds; their clock may differ a little
      await store.put(`${prefix}.pdf`, payload().bytes, 'application/pdf');
      await store.put(`${prefix}/part-1.pdf`, payload().bytes, 'application/pdf');
      const listed: { key: string; lastModified: Date }[] = [];
      for await (const o of store.list(prefix)) listed.push(o);
      expect(listed.map((o) => o.key).sort()).toEqual([`${prefix}.pdf`, `${prefix}/part-1.pdf`]);
      for (const o of listed) expect(o.lastModified.getTime()).toBeGreaterThanOrEqual(before);
      // What `skip` answers true for is left out (the retention sweep's renders too young to expire).
      const kept: string[] = [];
      for await (const o of store.list(prefix, (key) => key.endsWith('.pdf') && !key.includes('/part-'))) kept.push(o.key);
      expect(kept).toEqual([`${prefix}/part-1.pdf`]);
    });
  });
}
