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
  signedGetUrl(key: string, expiresInSeconds: number): Promise<string>;
  ping(): Promise<void>;
}
