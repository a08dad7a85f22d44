import type { DocumentKey } from '@pressroom/domain';

export type { DocumentKey };

/** A document as read, with the version a compare-and-set expects (an opaque token). */
export interface Versioned<T> {
  doc: T;
  version: string;
}

export interface DocumentCollectionSpec {
  /** Where the collection lives within the store, e.g. `status:` (Redis: the key prefix). */
  name: string;
  /** Documents expire this long after their last write (0 or absent: never). A view can be rebuilt from the log. */
  ttlMs?: number;
  /** The channel a `notify` write announces the document's id on, e.g. `status-events`. */
  channel?: string;
}

/**
 * The versioned-document port: what every projected view (status, templates) stores. A document
 * is a JSON value under a key; a write is a compare-and-set against the version read, so writers
 * in several processes (the ingress and the projector apply the same events) never lose one
 * another's change: the loser reads again and retries (`project` in projections/project.ts).
 *
 * Adapters guarantee:
 * - `compareAndSet` writes only if the document still has `expected` (undefined: is absent), and
 *   answers whether it did; a `next` equal to the version read may answer true without writing
 *   (it changes nothing a projection needs: the fold already saw that document);
 * - with `notify`, the id is published on the collection's channel in the same atomic step;
 * - documents read are values the caller must not change (the memory adapter hands out its own);
 * - `list(group)` returns the documents of one group, in no particular order;
 * - `clear(name)` removes every document and marker whose name starts with `name`.
 */
export interface DocumentCollection<T> {
  get(key: DocumentKey): Promise<Versioned<T> | undefined>;
  getMany(keys: DocumentKey[]): Promise<(Versioned<T> | undefined)[]>;
  list(group: string): Promise<T[]>;
  /** `ttlMs`: this write's lifetime instead of the collection's (0: for ever; an adapter without expiry ignores it). */
  compareAndSet(key: DocumentKey, expected: string | undefined, next: T, opts?: { notify?: boolean; ttlMs?: number }): Promise<boolean>;
  /**
   * Many compare-and-sets in one round trip (Redis: one pipeline), each with `compareAndSet`'s
   * guarantees on its own (not a transaction: some may win while others lose). Answers, in
   * order, whether each was written. What batched replays use (see `projectMany`).
   */
  compareAndSetMany(writes: readonly CompareAndSet<T>[]): Promise<boolean[]>;
}

/** One write of `compareAndSetMany`. */
export interface CompareAndSet<T> {
  key: DocumentKey;
  expected: string | undefined;
  next: T;
  notify?: boolean;
  ttlMs?: number;
}

export interface DocumentStore {
  collection<T>(spec: DocumentCollectionSpec): DocumentCollection<T>;
  /** Markers (a view's "built"): they live exactly as long as the documents beside them. */
  isMarked(name: string): Promise<boolean>;
  mark(name: string): Promise<void>;
  /**
   * For a store that can lose its data (Redis): notes, beside the documents, that a replay marking
   * `name` starts, and answers the note's id; `markIfNoted` then sets the marker only if that note
   * is still there, in one atomic step (see BuiltMarker.startBuild).
   */
  startMarking?(name: string): Promise<string>;
  markIfNoted?(name: string, note: string): Promise<boolean>;
  /** Removes every document and marker whose name starts with `prefix` (a view's, before a rebuild). */
  clear(prefix: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
