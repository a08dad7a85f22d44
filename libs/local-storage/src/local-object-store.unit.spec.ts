import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalObjectStore, type LocalObjectStore, type SignedFile } from './local-object-store.ts';
import { unsafeKeyReason } from './object-key.ts';

async function readAll(stream: Buffer | Readable): Promise<Buffer> {
  if (stream instanceof Buffer) return stream;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function linkParts(url: string): { key: string; expires: string; signature: string } {
  const u = new URL(url);
  return {
    key: u.pathname.slice('/v1/files/'.length).split('/').map(decodeURIComponent).join('/'),
    expires: u.searchParams.get('expires')!,
    signature: u.searchParams.get('signature')!,
  };
}

describe('LocalObjectStore', () => {
  let dir: string;
  let now: number;
  let store: LocalObjectStore;
  const key = 'acme/0190a8f2-0000-7000-8000-000000000001.pdf';

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pressroom-files-'));
    now = Date.parse('2030-01-01T00:00:00.250Z');
    store = createLocalObjectStore({
      dir,
      publicBaseUrl: 'https://files.example.test',
      signingSecret: 's3cret',
      clock: { now: () => new Date(now) },
    });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('builds links as <base>/v1/files/<encoded key>?expires=<unix s>&signature=<64 hex>', async () => {
    const url = await store.signedGetUrl('acme/ä b.pdf', 3600);
    expect(url).toMatch(/^https:\/\/files\.example\.test\/v1\/files\/acme\/%C3%A4%20b\.pdf\?expires=1893459600&signature=[0-9a-f]{64}$/);
  });

  it('serves a small file as its bytes and a large one as a stream of them', async () => {
    const small = randomBytes(200 * 1024);
    const large = randomBytes(300 * 1024);
    await store.put('acme/small.pdf', small, 'application/pdf');
    await store.put('acme/large.pdf', large, 'application/pdf');
    for (const [name, bytes, streamed] of [
      ['acme/small.pdf', small, false],
      ['acme/large.pdf', large, true],
    ] as const) {
      const { expires, signature } = linkParts(await store.signedGetUrl(name, 60));
      const file = (await store.openSignedFile(name, expires, signature)) as SignedFile;
      expect(file.body instanceof Readable).toBe(streamed);
      expect(file.size).toBe(bytes.byteLength);
      expect((await readAll(file.body)).equals(bytes)).toBe(true);
    }
  });

  it('opens a file while the link is valid, and refuses it from its expiry second on', async () => {
    await store.put(key, new Uint8Array([1, 2, 3]), 'application/pdf');
    const { expires, signature } = linkParts(await store.signedGetUrl(key, 10));
    now += 9_000; // 00:00:09.250, expires at 00:00:10
    const file = (await store.openSignedFile(key, expires, signature)) as SignedFile;
    expect(file).toMatchObject({
      contentType: 'application/pdf',
      size: 3,
      fileName: '0190a8f2-0000-7000-8000-000000000001.pdf',
      maxAgeSeconds: 0,
    });
    expect([...(await readAll(file.body))]).toEqual([1, 2, 3]);
    now = Number(expires) * 1000;
    expect(await store.openSignedFile(key, expires, signature)).toBe('forbidden');
  });

  it('refuses tampered keys, expiries and signatures', async () => {
    await store.put(key, new Uint8Array([1]), 'application/pdf');
    await store.put('acme/other.pdf', new Uint8Array([2]), 'application/pdf');
    const { expires, signature } = linkParts(await store.signedGetUrl(key, 60));
    const flipped = signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
    expect(await store.openSignedFile(key, expires, flipped)).toBe('forbidden');
    expect(await store.openSignedFile('acme/other.pdf', expires, signature)).toBe('forbidden');
    expect(await store.openSignedFile(key, String(Number(expires) + 3600), signature)).toBe('forbidden');
    expect(await store.openSignedFile(key, expires, signature.toUpperCase())).toBe('forbidden');
    expect(await store.openSignedFile(key, [expires], signature)).toBe('forbidden');
    expect(await store.openSignedFile(key, expires, undefined)).toBe('forbidden');
  });

  it('refuses a validly signed link to a missing file (no existence oracle)', async () => {
    const { expires, signature } = linkParts(await store.signedGetUrl('acme/never-stored.pdf', 60));
    expect(await store.openSignedFile('acme/never-stored.pdf', expires, signature)).toBe('forbidden');
  });

  it("answers gone for a genuine live link to a render's file that was removed (only our own link tells it)", async () => {
    const key = 'acme/019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10.pdf';
    await store.put(key, new Uint8Array([1]), 'application/pdf');
    const { expires, signature } = linkParts(await store.signedGetUrl(key, 60));
    await store.delete(key);
    expect(await store.openSignedFile(key, expires, signature)).toBe('gone');
  });

  it('lists stored objects with the time they were written', async () => {
    await store.put('acme/listed.pdf', new Uint8Array([1]), 'application/pdf');
    const listed: string[] = [];
    for await (const o of store.list!('acme/')) {
      expect(o.lastModified).toBeInstanceOf(Date);
      listed.push(o.key);
    }
    expect(listed).toContain('acme/listed.pdf');
  });

  it('refuses unsafe keys everywhere', async () => {
    for (const bad of ['../x.pdf', 'a/../../x.pdf', '/etc/passwd', 'a\\b.pdf', 'a//b.pdf', 'a/./b.pdf', 'a\nb.pdf', 'a\u0000b', '']) {
      expect(unsafeKeyReason(bad), JSON.stringify(bad)).toBeDefined();
      await expect(store.put(bad, new Uint8Array([1]), 'application/pdf')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      await expect(store.signedGetUrl(bad, 60)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps the content type given at put, falling back to the extension', async () => {
    await store.put('acme/a.bin', new Uint8Array([1]), 'image/png');
    const a = linkParts(await store.signedGetUrl('acme/a.bin', 60));
    expect(((await store.openSignedFile(a.key, a.expires, a.signature)) as SignedFile).contentType).toBe('image/png');
    await rm(join(dir, 'meta'), { recursive: true });
    await store.put('acme/b.PNG', new Uint8Array([1]), 'image/png');
    await rm(join(dir, 'meta'), { recursive: true, force: true });
    const b = linkParts(await store.signedGetUrl('acme/b.PNG', 60));
    expect(((await store.openSignedFile(b.key, b.expires, b.signature)) as SignedFile).contentType).toBe('image/png');
  });

  it('writes no metadata for the type a name implies, and an overwrite with that type drops the earlier one', async () => {
    await store.put('acme/c.pdf', new Uint8Array([1]), 'application/pdf');
    await store.put('acme/c.payload.json', new Uint8Array([1]), 'application/json');
    await expect(readdir(join(dir, 'meta', 'acme'))).rejects.toMatchObject({ code: 'ENOENT' });
    await store.put('acme/d.pdf', new Uint8Array([1]), 'text/plain');
    expect((await store.get('acme/d.pdf'))?.contentType).toBe('text/plain');
    await store.put('acme/d.pdf', new Uint8Array([2]), 'application/pdf');
    expect(await store.get('acme/d.pdf')).toEqual({ bytes: new Uint8Array([2]), contentType: 'application/pdf' });
    expect(await readdir(join(dir, 'meta', 'acme'))).toEqual([]);
    expect((await store.get('acme/c.payload.json'))?.contentType).toBe('application/json');
  });

  it('writes through a temporary file and leaves none behind', async () => {
    await store.put(key, new Uint8Array(1 << 16), 'application/pdf');
    await store.put(key, new Uint8Array([9]), 'application/pdf');
    expect(await readdir(join(dir, 'tmp'))).toEqual([]);
    expect(await readdir(join(dir, 'objects', 'acme'))).toEqual(['0190a8f2-0000-7000-8000-000000000001.pdf']);
  });

  describe('with spare files', () => {
    const spareStore = () =>
      createLocalObjectStore({ dir, publicBaseUrl: 'https://files.example.test', signingSecret: 's3cret', spareFiles: 2 });
    const tmpFiles = async () => (await readdir(join(dir, 'tmp'))).sort();
    /** Until tmp/ holds `count` files (the spares are made in the background), at most 2 s. */
    const settle = async (count: number) => {
      for (let waited = 0; waited < 2000 && (await tmpFiles()).length !== count; waited += 5) await new Promise((r) => setTimeout(r, 5));
    };

    it('writes into files made ahead, keeps two made, and removes them at close', async () => {
      // Given a store with two spares, after a first put (which makes its own file and begins the spares)
      const spared = spareStore();
      await spared.put(key, new Uint8Array([1, 2, 3]), 'application/pdf');
      await settle(2);
      const made = await tmpFiles();
      expect(made).toHaveLength(2);
      // When the next puts take them (a large one over a small one, then back)
      await spared.put(key, new Uint8Array(1 << 16).fill(7), 'application/pdf');
      await spared.put('acme/other.json', new TextEncoder().encode('{"a":1}'), 'application/json');
      // Then each object holds exactly its bytes, and the spares were used and made again
      expect((await spared.get(key))?.bytes).toEqual(new Uint8Array(1 << 16).fill(7));
      expect(new TextDecoder().decode((await spared.get('acme/other.json'))?.bytes)).toBe('{"a":1}');
      await settle(2);
      const now = await tmpFiles();
      expect(now).toHaveLength(2);
      expect(now.filter((name) => made.includes(name))).toEqual([]);
      // And close removes them; a later put still works, without spares
      await spared.close();
      expect(await tmpFiles()).toEqual([]);
      await spared.put(key, new Uint8Array([4]), 'application/pdf');
      expect((await spared.get(key))?.bytes).toEqual(new Uint8Array([4]));
      expect(await tmpFiles()).toEqual([]);
    });

    it('removes, at its first spare, the files an ended process left there an hour ago or more', async () => {
      // Given a stale file and a recent one in tmp/
      await mkdir(join(dir, 'tmp'), { recursive: true });
      await writeFile(join(dir, 'tmp', 'left-by-a-crash'), 'x');
      await utimes(join(dir, 'tmp', 'left-by-a-crash'), new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
      await writeFile(join(dir, 'tmp', 'being-written'), 'y');
      // When a store with spares makes its first
      const spared = spareStore();
      await spared.put(key, new Uint8Array([1]), 'application/pdf');
      await settle(3);
      // Then the stale one is gone, the recent one stays beside the two spares
      const left = await tmpFiles();
      expect(left).toContain('being-written');
      expect(left).not.toContain('left-by-a-crash');
      expect(left).toHaveLength(3);
      await spared.close();
    });
  });

  it('refuses links that would not live a positive whole number of seconds', async () => {
    await expect(store.signedGetUrl(key, 0)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(store.signedGetUrl(key, 1.5)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('answers ping when its folder is writable', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
