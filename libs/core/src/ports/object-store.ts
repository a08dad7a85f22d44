/**
 * One place files can be stored: our own storage (local disk or our S3 bucket) or one S3
 * connection of a tenant.
 *
 * Adapters guarantee: `put` overwrites an existing key (retries are idempotent); `signedGetUrl`
 * returns a URL that works without credentials for exactly `expiresInSeconds` from now and is
 * refused (403, no bytes) when tampered with or expired.
 */
export interface ObjectStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  signedGetUrl(key: string, expiresInSeconds: number): Promise<string>;
  ping(): Promise<void>;
}
