import type { ArtifactRef, StorageTarget } from '@pressroom/schemas';
import { PressroomError } from '@pressroom/domain';
import type { Catalog, S3Connection } from './ports/catalog.ts';
import type { ObjectStore } from './ports/object-store.ts';
import type { SecretBox } from './secret-box.ts';
import type { IssuedLink, LinkLedger } from './link-ledger.ts';

/** A tenant S3 connection with its secret in clear: static credentials, or a role to assume (with the service's own credentials). */
export interface OpenS3Connection {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  roleArn?: string;
  externalId?: string;
}

export interface S3ConnectionStoreFactory {
  (connection: OpenS3Connection): ObjectStore;
}

/** Where the test write of a new or changed connection goes (deleted right after). */
export const CONNECTION_TEST_KEY_PREFIX = '.pressroom-connection-test/';

/** Signed URLs live one hour after they are handed out (spec section 8). */
export const SIGNED_URL_TTL_SECONDS = 3600;

/**
 * Routes an artifact to our own store or to one of the tenant's S3 connections, resolving
 * the connection (and opening its sealed secret) at use time, so a rotated key takes effect.
 */
export class ArtifactStorage {
  readonly #own: ObjectStore;
  readonly #catalog: Catalog;
  readonly #secrets: SecretBox;
  readonly #connectionStore: S3ConnectionStoreFactory;
  readonly #links: LinkLedger | undefined;

  constructor(deps: {
    own: ObjectStore;
    catalog: Catalog;
    secrets: SecretBox;
    connectionStore: S3ConnectionStoreFactory;
    /** Where links handed out are recorded (`LinkIssued`); none: not recorded. */
    links?: LinkLedger;
  }) {
    this.#own = deps.own;
    this.#links = deps.links;
    this.#catalog = deps.catalog;
    this.#secrets = deps.secrets;
    this.#connectionStore = deps.connectionStore;
  }

  async put(tenantId: string, target: StorageTarget, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const store = await this.#storeFor(tenantId, target);
    await store.put(key, bytes, contentType);
  }

  /**
   * A link to the artifact that lives `expiresInSeconds` from now (the request's signedUrlExpiresIn;
   * default one hour). With `handedOut` (a link given to a caller: a response, a webhook body) it
   * is recorded as `LinkIssued`, after signing and without waiting (see LinkLedger).
   */
  async signedUrl(
    tenantId: string,
    artifact: ArtifactRef,
    expiresInSeconds: number = SIGNED_URL_TTL_SECONDS,
    handedOut?: Pick<IssuedLink, 'requestId' | 'where' | 'file'>,
  ): Promise<string> {
    const store = await this.#storeFor(tenantId, artifact.target);
    const url = await store.signedGetUrl(artifact.key, expiresInSeconds);
    if (handedOut) this.#links?.issued({ ...handedOut, tenantId, expiresInSeconds });
    return url;
  }

  /**
   * The PDF tools' view of a URL: `own` with the key when it is a live link of our own storage
   * to one of this tenant's files (read from storage, never fetched), `foreign-own` when it is
   * one of our links but expired or to another tenant's file, `external` otherwise.
   */
  classifyUrl(tenantId: string, url: string): { kind: 'own'; key: string } | { kind: 'foreign-own' } | { kind: 'external' } {
    const key = this.#own.keyOfSignedUrl?.(url);
    if (key !== undefined) return key.startsWith(`${tenantId}/`) ? { kind: 'own', key } : { kind: 'foreign-own' };
    return { kind: 'external' };
  }

  /** A file of our own storage, unless it is missing or larger than `maxBytes` ('too-large'). */
  async readOwn(key: string, maxBytes: number): Promise<Uint8Array | 'too-large' | undefined> {
    const size = this.#own.size ? await this.#own.size(key) : undefined;
    if (size !== undefined && size > maxBytes) return 'too-large';
    const file = await this.#own.get(key);
    if (!file) return undefined;
    return file.bytes.byteLength > maxBytes ? 'too-large' : file.bytes;
  }

  /** A presigned (S3) or HMAC-signed (local) PUT to our own storage; undefined when the store has none. */
  async signedPutUrl(key: string, expiresInSeconds: number): Promise<string | undefined> {
    return this.#own.signedPutUrl?.(key, expiresInSeconds);
  }

  /**
   * Copies a file of our own storage to a new key (the render cache: each render keeps its own
   * object). False when the source is gone or the store cannot copy: the caller renders instead.
   */
  async copyOwn(fromKey: string, toKey: string): Promise<boolean> {
    return this.#own.copy ? this.#own.copy(fromKey, toKey) : false;
  }

  /** A link to a file of our own storage. */
  ownSignedUrl(key: string, expiresInSeconds: number): Promise<string> {
    return this.#own.signedGetUrl(key, expiresInSeconds);
  }

  /** The bytes of a stored artifact (previews answer with them), or undefined when it is gone. */
  async read(tenantId: string, artifact: ArtifactRef): Promise<{ bytes: Uint8Array; contentType: string } | undefined> {
    const store = await this.#storeFor(tenantId, artifact.target);
    return store.get(artifact.key);
  }

  ping(): Promise<void> {
    return this.#own.ping();
  }

  /** Our own store (the retention sweeper and DELETE remove files there, and only there). */
  get own(): ObjectStore {
    return this.#own;
  }

  /**
   * Writes a small object to the connection's bucket and deletes it: what registering or
   * changing a connection requires. Resolves with the reason it failed (the storage's own
   * error, e.g. `AccessDenied: …`), or undefined when both worked.
   */
  async testConnection(connection: OpenS3Connection, testId: string): Promise<string | undefined> {
    const key = `${CONNECTION_TEST_KEY_PREFIX}${testId}.txt`;
    let step = 'write';
    try {
      const store = this.#connectionStore(connection);
      await store.put(
        key,
        new TextEncoder().encode('Pressroom checks that it can write here; this file is deleted at once.\n'),
        'text/plain',
      );
      step = 'delete';
      await store.delete(key);
      return undefined;
    } catch (err) {
      // The adapter's error names the operation and the storage's code; its cause says why in the storage's words.
      const cause = (err as { cause?: { message?: string } }).cause?.message;
      const message = err instanceof Error ? err.message : String(err);
      return `test ${step} failed: ${message}${cause && !message.includes(cause) ? ` ${cause}` : ''}`.slice(0, 500);
    }
  }

  async #storeFor(tenantId: string, target: StorageTarget): Promise<ObjectStore> {
    if (target.kind === 'default') return this.#own;
    const connection = await this.#catalog.getS3Connection(tenantId, target.connectionId);
    if (!connection) throw new PressroomError('NOT_FOUND', `S3 connection ${target.connectionId} not found.`);
    return this.#connectionStore(this.#open(connection));
  }

  #open(c: S3Connection) {
    return {
      bucket: c.bucket,
      region: c.region,
      ...(c.endpoint ? { endpoint: c.endpoint } : {}),
      ...(c.forcePathStyle !== undefined ? { forcePathStyle: c.forcePathStyle } : {}),
      ...(c.accessKeyId !== undefined ? { accessKeyId: c.accessKeyId } : {}),
      ...(c.sealedSecretAccessKey !== undefined ? { secretAccessKey: this.#secrets.open(c.sealedSecretAccessKey) } : {}),
      ...(c.roleArn !== undefined ? { roleArn: c.roleArn } : {}),
      ...(c.externalId !== undefined ? { externalId: c.externalId } : {}),
    };
  }
}
