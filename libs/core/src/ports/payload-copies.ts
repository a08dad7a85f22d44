/**
 * Short-lived copies of stored request payloads (sync requests': their worker takes them within
 * moments) in a store faster than our storage (Redis, on the distributed profile), so the
 * render worker takes a request's payload in one round trip
 * beside its status read instead of reading the object back from S3 (issue 13). Never the
 * record: the object in our storage is. A copy that is missing (taken, expired, evicted, Redis
 * lost its data or is away) is read from storage as before; a copy is checked against the
 * request's hash like the object is.
 *
 * Adapters guarantee: `put` keeps the bytes under the key for at most the adapter's time to
 * live and resolves true, or resolves false when it keeps nothing (a payload larger than it
 * accepts); `take` answers them at most once (the
 * copy goes as it is read: a redelivered request reads the object); `remove` of a missing key
 * succeeds, and a removed copy is never answered afterwards (removal of a render removes its
 * copies before its objects, so a removed payload is never rendered from a copy).
 */
export interface PayloadCopies {
  put(key: string, bytes: Uint8Array): Promise<boolean>;
  take(key: string): Promise<Uint8Array | undefined>;
  remove(keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
