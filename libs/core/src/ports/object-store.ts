/**
 * One place files can be stored: our own storage (local disk or our S3 bucket) or one S3
 * connection of a tenant.
 *
 * Adapters guarantee: `put` overwrites an existing key (retries are idempotent); `signedGetUrl`
 * returns a URL that works without credentials for exactly `expiresInSeconds` from now and is
 * refused (403, no bytes) when tampered with or expired. `get` returns the bytes and the content
 * type given to `put`, or undefined for a missing key; `delete` of a missing key succeeds.
 */
export interface ObjectStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
  delete(key: string): Promise<void>;
  /**
   * Our own storage (the render cache): a new, independent object `toKey` with the bytes and
   * content type of `fromKey` (removing either later never touches the other), written whole
   * or not at all. Resolves false when `fromKey` does not exist.
   */
  copy?(fromKey: string, toKey: string): Promise<boolean>;
  signedGetUrl(key: string, expiresInSeconds: number): Promise<string>;
  ping(): Promise<void>;
  /**
   * Our own storage only (the PDF tools): the key a link of this store points to, when `url` is
   * one this store signed and it has not expired; undefined for any other URL. Lets a tool read
   * a link we handed out from storage, without going to the network.
   */
  keyOfSignedUrl?(url: string): string | undefined;
  /** Our own storage only: a URL that takes one PUT of a file under `key` for `expiresInSeconds`. */
  signedPutUrl?(key: string, expiresInSeconds: number): Promise<string>;
  /** The size of a stored object, or undefined when it is missing (checked before a large read). */
  size?(key: string): Promise<number | undefined>;
  /**
   * Our own storage only (the retention sweeper): every object under `prefix` with the time it
   * was last written, in pages. Never offered for a tenant's S3 connection: we never remove
   * files from a caller's bucket. Keys `skip` answers true for are left out before any further
   * work on them (the local store's stat of each file).
   */
  list?(prefix: string, skip?: (key: string) => boolean): AsyncIterable<{ key: string; lastModified: Date }>;
}
