import { EventEmitter } from 'node:events';
import type { DocumentCollection, DocumentCollectionSpec, DocumentKey, DocumentStore, Versioned } from '../ports/document-store.ts';

/** The memory collection adds what a snapshot needs (see view-snapshots.ts). */
export interface MemoryDocumentCollection<T> extends DocumentCollection<T> {
  /** Every document of the collection. */
  all(): T[];
  /** Every document of the collection with its key (a snapshot that is read through: see snapshotted-documents.ts). */
  entries(): { key: DocumentKey; doc: T }[];
  /** Writes unconditionally (loading a snapshot, before anyone reads). */
  put(key: DocumentKey, doc: T): void;
  /**
   * Forgets the document under `key` when it is still `doc` (the same object: no write since the
   * caller read it); tells whether it did. What a view drops once a snapshot holds the document.
   */
  forgetIfUnchanged(key: DocumentKey, doc: T): boolean;
}

export interface MemoryDocumentStore extends DocumentStore {
  collection<T>(spec: DocumentCollectionSpec): MemoryDocumentCollection<T>;
  /** Calls `listener` when a `notify` write announces `id` on `channel`; returns the unsubscribe. */
  watch(channel: string, id: string, listener: () => void): () => void;
}

/**
 * The embedded profile's documents: Maps in this process (a view is rebuilt from the log, or a
 * snapshot and its tail, at start). A plain key is one Map entry; a group is a Map of its ids, so
 * `list` is one lookup. Documents are stored as given and handed out as they are: callers treat
 * them as values (the views clone what they return to apps). The version is a counter.
 */
export function createMemoryDocumentStore(): MemoryDocumentStore {
  const plain = new Map<string, Versioned<unknown>>();
  const groups = new Map<string, Map<string, Versioned<unknown>>>();
  const markers = new Set<string>();
  const announcements = new EventEmitter();
  announcements.setMaxListeners(0); // one listener per waiting sync request; no leak warning
  let counter = 0;
  const topicOf = (channel: string, id: string) => `${channel}\u0000${id}`;

  function collection<T>(spec: DocumentCollectionSpec): MemoryDocumentCollection<T> {
    const slot = (key: DocumentKey): { map: Map<string, Versioned<unknown>>; id: string } | undefined => {
      if (typeof key === 'string') return { map: plain, id: spec.name + key };
      const map = groups.get(spec.name + key.group);
      return map && { map, id: key.id };
    };
    const read = (key: DocumentKey) => {
      const at = slot(key);
      return at?.map.get(at.id) as Versioned<T> | undefined;
    };
    const write = (key: DocumentKey, doc: T) => {
      let target = slot(key);
      if (!target && typeof key !== 'string') {
        const map = new Map<string, Versioned<unknown>>();
        groups.set(spec.name + key.group, map);
        target = { map, id: key.id };
      }
      target!.map.set(target!.id, { doc, version: String(++counter) });
    };
    const compareAndSet = (key: DocumentKey, expected: string | undefined, next: T, notify: boolean): boolean => {
      const current = read(key);
      if (current?.version !== expected) return false;
      if (current?.doc === next) return true;
      write(key, next);
      const id = typeof key === 'string' ? key : key.id;
      if (notify && spec.channel) announcements.emit(topicOf(spec.channel, id));
      return true;
    };
    return {
      async get(key) {
        return read(key);
      },
      async getMany(keys) {
        return keys.map(read);
      },
      async list(group) {
        return [...(groups.get(spec.name + group)?.values() ?? [])].map((v) => v.doc as T);
      },
      compareAndSet: async (key, expected, next, opts) => compareAndSet(key, expected, next, opts?.notify ?? false),
      async compareAndSetMany(writes) {
        return writes.map((w) => compareAndSet(w.key, w.expected, w.next, w.notify ?? false));
      },
      all() {
        const out: T[] = [];
        for (const [id, v] of plain) if (id.startsWith(spec.name)) out.push(v.doc as T);
        for (const [name, map] of groups) if (name.startsWith(spec.name)) for (const v of map.values()) out.push(v.doc as T);
        return out;
      },
      entries() {
        const out: { key: DocumentKey; doc: T }[] = [];
        for (const [id, v] of plain) if (id.startsWith(spec.name)) out.push({ key: id.slice(spec.name.length), doc: v.doc as T });
        for (const [name, map] of groups) {
          if (!name.startsWith(spec.name)) continue;
          const group = name.slice(spec.name.length);
          for (const [id, v] of map) out.push({ key: { group, id }, doc: v.doc as T });
        }
        return out;
      },
      put: write,
      forgetIfUnchanged(key, doc) {
        const at = slot(key);
        if (!at || at.map.get(at.id)?.doc !== doc) return false;
        return at.map.delete(at.id);
      },
    };
  }

  return {
    collection,
    watch(channel, id, listener) {
      const topic = topicOf(channel, id);
      announcements.on(topic, listener);
      return () => void announcements.off(topic, listener);
    },
    isMarked: async (name) => markers.has(name),
    async mark(name) {
      markers.add(name);
    },
    async clear(prefix) {
      for (const map of [plain, groups, markers]) for (const name of map.keys()) if (name.startsWith(prefix)) map.delete(name);
    },
    async ping() {},
    async close() {},
  };
}
