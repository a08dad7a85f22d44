import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, copyFile, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock, type ObjectStore } from '@pressroom/core';
import { PressroomError, renderOfObjectKey } from '@pressroom/domain';
import { assertSafeKey, decodeKeyPath, encodeKeyPath, unsafeKeyReason } from './object-key.ts';
import { SpareFiles } from './spare-files.ts';
import { parseExpires, signKey, signUploadKey, verifyKeySignature, verifyUploadSignature } from './url-signature.ts';

export interface LocalObjectStoreOptions {
  /** The storage folder; created on first use. */
  dir: string;
  /** Where clients reach the ingress, e.g. `http://localhost:3000`; links start with it. */
  publicBaseUrl: string;
  /** HMAC key of the links: anyone holding it can mint links to any file. */
  signingSecret: string;
  clock?: Clock;
  /**
   * Renders' files kept in memory after their put, for the download that follows its answer
   * (see RECENT_FILES). Default RECENT_FILES; `{ maxBytes: 0 }` keeps none.
   */
  recentFiles?: { maxBytes: number; ttlMs: number };
  /**
   * Empty files kept made ahead of the writes (see SpareFiles), at most this many; default 0
   * (none). The service's store has a few; `close` then removes those left.
   */
  spareFiles?: number;
}

/** What a render stores for its caller to download (a request's payload is JSON). */
const RENDER_OUTPUTS = new Set(['application/pdf', 'image/png']);

/**
 * A sync caller downloads its file right after the answer: kept here that long, the download is
 * one response from memory instead of an open, a stat, a metadata read, a read and a close on the
 * disk (~2 ms of a render's download on a busy 2-core machine, issue 13). Only renders' files
 * (renderOfObjectKey, a PDF or a PNG), only small ones (SMALL_FILE_BYTES), for a minute, 16 MiB in all. This
 * process is the only writer of the folder (the ops CLI refuses it while the service runs), and
 * every write or removal goes through this store, which drops its copy first: the memory never
 * answers for a file the disk no longer has.
 */
export const RECENT_FILES = { maxBytes: 16 * 1024 * 1024, ttlMs: 60_000 };

/** A file a valid link points to, ready to be streamed; the caller must consume or destroy `stream`. */
export interface SignedFile {
  /** The bytes: read whole up to SMALL_FILE_BYTES, else a stream of the open file. */
  body: Buffer | Readable;
  contentType: string;
  size: number;
  /** The key's last segment, for Content-Disposition. */
  fileName: string;
  /** Seconds the link has left: a cache must not keep the file longer. */
  maxAgeSeconds: number;
}

export interface LocalObjectStore extends ObjectStore {
  /**
   * Opens the file a link points to, or answers 'forbidden' — for a bad or tampered
   * signature, an expired link and an unsafe key alike, so a refusal tells nothing about which
   * files exist — or 'gone' for a genuine live link to a render's file that was removed
   * (retention, DELETE): only the holder of our own link learns that, and only of that file.
   */
  openSignedFile(key: string, expires: unknown, signature: unknown): Promise<SignedFile | 'forbidden' | 'gone'>;
  /** Whether an upload link (signedPutUrl) is genuine and unexpired. */
  acceptsUpload(key: string, expires: unknown, signature: unknown): boolean;
  keyOfSignedUrl(url: string): string | undefined;
  /** Removes the spare files (see spareFiles); the store still works after, without them. */
  close(): Promise<void>;
  signedPutUrl(key: string, expiresInSeconds: number): Promise<string>;
  size(key: string): Promise<number | undefined>;
}

/** Files up to this size are served from one read (SignedFile.body is a Buffer); larger ones stream. */
const SMALL_FILE_BYTES = 256 * 1024;

/** Where the embedded profile takes uploads (PUT), as `signedPutUrl` builds them. */
export const LOCAL_UPLOAD_PREFIX = '/v1/tools/uploads/';

const BY_EXTENSION: Record<string, string> = { pdf: 'application/pdf', png: 'image/png', json: 'application/json' };

/** The type a key's extension implies (what `get` answers for a file without metadata). */
function impliedContentType(key: string): string {
  const ext = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  return (key.lastIndexOf('.') > key.lastIndexOf('/') ? BY_EXTENSION[ext] : undefined) ?? 'application/octet-stream';
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * The embedded profile's file storage. Layout under `dir`:
 *
 *   objects/<key>        the bytes
 *   meta/<key>.json      { contentType } as given to `put`, when the key's extension implies another
 *   tmp/                 files being written (renamed into place when complete)
 *
 * Each file is written to tmp/, synced, then renamed, so a reader sees the old object or
 * the new one, never a partial one. A link is
 * `<publicBaseUrl>/v1/files/<key, each segment percent-encoded>?expires=<unix s>&signature=<hex>`
 * and is valid while now < expires (second-granular, as S3's are).
 */
export function createLocalObjectStore(options: LocalObjectStoreOptions): LocalObjectStore {
  const { dir, signingSecret } = options;
  if (!signingSecret) throw new PressroomError('VALIDATION_FAILED', 'The local storage needs a signing secret.');
  const clock = options.clock ?? systemClock;
  const baseUrl = options.publicBaseUrl.replace(/\/+$/, '');
  const objectPath = (key: string) => join(dir, 'objects', ...key.split('/'));
  const metaPath = (key: string) => `${join(dir, 'meta', ...key.split('/'))}.json`;
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  const recentOptions = options.recentFiles ?? RECENT_FILES;
  const recent =
    recentOptions.maxBytes > 0
      ? new LRUCache<string, { body: Buffer; contentType: string }>({
          maxSize: recentOptions.maxBytes,
          sizeCalculation: (file) => Math.max(1, file.body.byteLength),
          ttl: recentOptions.ttlMs,
        })
      : undefined;
  const keepRecent = (key: string, bytes: Uint8Array | string, contentType: string) => {
    if (!recent || typeof bytes === 'string' || bytes.byteLength > SMALL_FILE_BYTES) return;
    if (!RENDER_OUTPUTS.has(contentType) || !renderOfObjectKey(key)) return; // not a request's payload, an asset or an upload
    recent.set(key, { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), contentType });
  };

  const tempName = () => randomBytes(12).toString('hex');
  const spares = options.spareFiles ? new SpareFiles(join(dir, 'tmp'), options.spareFiles, tempName) : undefined;

  // The folders exist after the first write into them: a write tries first and creates the
  // folder only when the system says it is missing, instead of two recursive mkdirs per write
  // (four per render on the request's path: the payload and the file; issue 13). A folder
  // removed later is made again.
  const openCreating = async (path: string) => {
    try {
      return await open(path, 'w');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(dirname(path), { recursive: true });
      return open(path, 'w');
    }
  };
  const renameCreating = async (from: string, to: string) => {
    try {
      await rename(from, to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(dirname(to), { recursive: true });
      await rename(from, to);
    }
  };

  /**
   * Writes the bytes to a new file under tmp/ and syncs them; `install` then renames it into
   * place (or removes it when the write is abandoned). Split so that put can prepare the
   * object's metadata while the bytes are written, and still install the metadata first.
   */
  const writeTemp = async (bytes: Uint8Array | string) => {
    const spare = spares?.take();
    const tmp = spare?.path ?? join(dir, 'tmp', tempName());
    try {
      const handle = spare?.handle ?? (await openCreating(tmp));
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
    return {
      install: async (path: string) => {
        try {
          await renameCreating(tmp, path);
        } catch (error) {
          await rm(tmp, { force: true });
          throw error;
        }
      },
      discard: () => rm(tmp, { force: true }),
    };
  };

  const writeAtomically = async (path: string, bytes: Uint8Array | string) => {
    await (await writeTemp(bytes)).install(path);
  };

  /**
   * The type the name implies needs no metadata file (contentTypeOf falls back to it): a render's
   * file and a stored payload cost one synced write, not two. A metadata file an earlier put of
   * the key left goes, so the new object never shows its type; any other type is written.
   */
  const settleMetadata = (key: string, contentType: string): Promise<void> =>
    impliedContentType(key) === contentType
      ? unlinkIfPresent(metaPath(key))
      : writeAtomically(metaPath(key), JSON.stringify({ contentType }));

  return {
    async close() {
      await spares?.close();
    },

    async put(key, bytes, contentType) {
      assertSafeKey(key);
      try {
        // The key's metadata is settled while the bytes are written and synced (~0.3 ms of each
        // put saved, issue 13); the object is renamed into place only after it, so a reader never
        // sees the new object with an earlier put's type.
        recent?.delete(key);
        const [meta, written] = await Promise.allSettled([settleMetadata(key, contentType), writeTemp(bytes)]);
        if (written.status === 'rejected') throw written.reason;
        if (meta.status === 'rejected') {
          await written.value.discard();
          throw meta.reason;
        }
        await written.value.install(objectPath(key));
        keepRecent(key, bytes, contentType);
      } catch (error) {
        throw new PressroomError('DEPENDENCY_UNAVAILABLE', `Could not store ${key} on the local disk.`, { retryable: true, cause: error });
      }
    },

    async get(key) {
      assertSafeKey(key);
      let bytes: Buffer;
      try {
        bytes = await readFile(objectPath(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new PressroomError('DEPENDENCY_UNAVAILABLE', `Could not read ${key} from the local disk.`, { retryable: true, cause: error });
      }
      return { bytes: new Uint8Array(bytes), contentType: await contentTypeOf(metaPath(key), key.slice(key.lastIndexOf('/') + 1)) };
    },

    async copy(fromKey, toKey) {
      assertSafeKey(fromKey);
      assertSafeKey(toKey);
      // A copy, not a hard link: a link shares the file's mtime, which retention reads as the
      // render's age, so the copy would expire with its source (and deleting one never touches
      // the other either way). FICLONE shares the blocks where the file system can (reflink).
      const tmp = join(dir, 'tmp', tempName());
      recent?.delete(toKey);
      try {
        await mkdir(dirname(tmp), { recursive: true });
        try {
          await copyFile(objectPath(fromKey), tmp, constants.COPYFILE_FICLONE);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
          throw error;
        }
        const contentType = await contentTypeOf(metaPath(fromKey), fromKey.slice(fromKey.lastIndexOf('/') + 1));
        await settleMetadata(toKey, contentType);
        await mkdir(dirname(objectPath(toKey)), { recursive: true });
        await rename(tmp, objectPath(toKey));
        return true;
      } catch (error) {
        await rm(tmp, { force: true });
        throw new PressroomError('DEPENDENCY_UNAVAILABLE', `Could not copy ${fromKey} on the local disk.`, {
          retryable: true,
          cause: error,
        });
      }
    },

    async delete(key) {
      assertSafeKey(key);
      recent?.delete(key);
      try {
        await rm(objectPath(key), { force: true });
        await rm(metaPath(key), { force: true });
      } catch (error) {
        throw new PressroomError('DEPENDENCY_UNAVAILABLE', `Could not delete ${key} on the local disk.`, { retryable: true, cause: error });
      }
    },

    async signedGetUrl(key, expiresInSeconds) {
      assertSafeKey(key);
      if (!Number.isSafeInteger(expiresInSeconds) || expiresInSeconds <= 0) {
        throw new PressroomError('VALIDATION_FAILED', `A link must live a positive whole number of seconds, not ${expiresInSeconds}.`);
      }
      const expires = nowSeconds() + expiresInSeconds;
      const signature = signKey(signingSecret, key, expires);
      return `${baseUrl}/v1/files/${encodeKeyPath(key)}?expires=${expires}&signature=${signature}`;
    },

    keyOfSignedUrl(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return undefined;
      }
      const prefix = `${baseUrl}/v1/files/`;
      const full = `${parsed.origin}${parsed.pathname}`;
      if (!full.startsWith(prefix)) return undefined;
      const key = decodeKeyPath(full.slice(prefix.length));
      const expires = parseExpires(parsed.searchParams.get('expires') ?? undefined);
      const signature = parsed.searchParams.get('signature');
      if (key === undefined || unsafeKeyReason(key) || expires === undefined || signature === null) return undefined;
      if (!verifyKeySignature(signingSecret, key, expires, signature)) return undefined;
      return clock.now().getTime() < expires * 1000 ? key : undefined;
    },

    async signedPutUrl(key, expiresInSeconds) {
      assertSafeKey(key);
      const expires = nowSeconds() + expiresInSeconds;
      return `${baseUrl}${LOCAL_UPLOAD_PREFIX}${encodeKeyPath(key)}?expires=${expires}&signature=${signUploadKey(signingSecret, key, expires)}`;
    },

    acceptsUpload(key, rawExpires, rawSignature) {
      const expires = parseExpires(rawExpires);
      if (expires === undefined || typeof rawSignature !== 'string' || unsafeKeyReason(key)) return false;
      if (!verifyUploadSignature(signingSecret, key, expires, rawSignature)) return false;
      return clock.now().getTime() < expires * 1000;
    },

    async size(key) {
      assertSafeKey(key);
      const handle = await open(objectPath(key), 'r').catch(() => undefined);
      if (!handle) return undefined;
      try {
        return (await handle.stat()).size;
      } finally {
        await handle.close();
      }
    },

    async openSignedFile(key, rawExpires, rawSignature) {
      const expires = parseExpires(rawExpires);
      if (expires === undefined || typeof rawSignature !== 'string' || unsafeKeyReason(key)) return 'forbidden';
      if (!verifyKeySignature(signingSecret, key, expires, rawSignature)) return 'forbidden';
      const now = clock.now().getTime();
      if (now >= expires * 1000) return 'forbidden';
      const maxAgeSeconds = Math.max(0, Math.floor((expires * 1000 - now) / 1000));
      const fileName = key.slice(key.lastIndexOf('/') + 1);
      const kept = recent?.get(key);
      if (kept) return { body: kept.body, contentType: kept.contentType, size: kept.body.byteLength, fileName, maxAgeSeconds };
      const handle = await open(objectPath(key), 'r').catch(() => undefined);
      // A live link we signed to a render's file that is no longer there: it was removed
      // (retention or a DELETE; we sign a render's key only once its file is stored). Said so
      // (410), rather than a refusal that suggests a bad link. Any other missing file: refused.
      if (!handle) return renderOfObjectKey(key) ? 'gone' : 'forbidden';
      try {
        const [stat, contentType] = await Promise.all([handle.stat(), contentTypeOf(metaPath(key), fileName)]);
        if (!stat.isFile()) {
          await handle.close();
          return 'forbidden';
        }
        // A small file (a typical PDF) is read whole and the handle closed at once: one read
        // instead of a stream's reads, end and close around the response (~0.5 ms of a sync
        // render's download, issue 13); a large one streams, never held in memory.
        let body: Buffer | Readable;
        if (stat.size <= SMALL_FILE_BYTES) {
          try {
            body = await handle.readFile();
          } finally {
            await handle.close();
          }
        } else {
          body = handle.createReadStream();
        }
        return {
          body,
          contentType,
          size: body instanceof Buffer ? body.byteLength : stat.size,
          fileName,
          maxAgeSeconds,
        };
      } catch (error) {
        await handle.close().catch(() => {});
        throw error;
      }
    },

    async *list(prefix, skip) {
      // A walk of the objects folder; the file's mtime is when it was stored (put writes it whole).
      const root = join(dir, 'objects');
      const walk = async function* (folder: string, keyPrefix: string): AsyncGenerator<{ key: string; lastModified: Date }> {
        const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return [];
          throw new PressroomError('DEPENDENCY_UNAVAILABLE', `Could not list ${folder}.`, { retryable: true, cause: error });
        });
        for (const entry of entries) {
          const key = `${keyPrefix}${entry.name}`;
          if (entry.isDirectory()) yield* walk(join(folder, entry.name), `${key}/`);
          else if (entry.isFile() && key.startsWith(prefix) && !skip?.(key)) {
            const info = await stat(join(folder, entry.name)).catch(() => undefined);
            if (info) yield { key, lastModified: info.mtime };
          }
        }
      };
      // Start at the prefix's folder (`acme/0199…` walks only `acme/`), not the whole tree.
      const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) : '';
      if (folder && unsafeKeyReason(folder.slice(0, -1))) return;
      yield* walk(folder ? join(root, ...folder.slice(0, -1).split('/')) : root, folder);
    },

    async ping() {
      try {
        await mkdir(join(dir, 'objects'), { recursive: true });
        await access(join(dir, 'objects'), constants.W_OK);
      } catch (error) {
        throw new PressroomError('DEPENDENCY_UNAVAILABLE', `The local storage folder ${dir} is not writable.`, {
          retryable: true,
          cause: error,
        });
      }
    },
  };
}

/** The type recorded at `put`; for a file without one, the type its extension implies. */
async function contentTypeOf(metaFile: string, fileName: string): Promise<string> {
  try {
    const meta = JSON.parse(await readFile(metaFile, 'utf8')) as { contentType?: unknown };
    if (typeof meta.contentType === 'string' && meta.contentType) return meta.contentType;
  } catch {
    // no metadata: fall back to the extension
  }
  return impliedContentType(fileName);
}
