import {
  deliveryDueAt,
  deliverySettled,
  deliversWebhook,
  foldDelivery,
  isWebhookEvent,
  withdrawsWebhook,
  type DocumentKey,
} from '@pressroom/domain';
import type { MemoryDocumentCollection, MemoryDocumentStore } from './adapters/memory-document-store.ts';
import { createMemoryDeliverySchedule } from './adapters/memory-delivery-store.ts';
import type { DocumentCollection, DocumentCollectionSpec, DocumentStore } from './ports/document-store.ts';
import { DELIVERY_COMPLETED, DELIVERY_GONE, DELIVERY_RECORDS, type DeliveryStore } from './ports/delivery-store.ts';
import type { LogRecord } from './ports/event-log.ts';
import { deliveryStoreOn } from './projections/delivery-documents.ts';

/** One document of the deliveries view in its snapshot: the collection and key it lives under, and the document. */
export interface DeliveryDocumentItem {
  /** `<collection name>\u0000<key>` or `<collection name>\u0000<group>\u0000<id>`: what the file is sorted and looked up by. */
  key: string;
  doc: unknown;
}

/** What a snapshot of the deliveries holds besides their documents: the requests whose delivery was not settled. */
interface PendingNote {
  pending: string[];
}

/**
 * The embedded profile's webhook deliveries, made snapshottable like the status view: one
 * document per request with an async outcome (a delivery record, the tenant's completed index, its
 * gone URLs) grows with history, so the snapshot is an indexed file read where it lies
 * (indexed-snapshot-file.ts), and the store reads a document it does not hold from it on first
 * use. What is not read through is the schedule: the requests not settled at the snapshot are
 * named in its header (`pending`), and the restore schedules them, and the requests the log after
 * it delivers or replays, when their record says they are due (`deliveryDueAt`), as a whole replay
 * does (`replayDeliveries`).
 *
 * A restore never wipes (applies are idempotent and forward-only, as for a replay) but must come
 * before the first apply: a record created from a later event before the snapshot is attached
 * would hide the snapshot's (`selfRebuildingDeliveries` with `rebuild` makes applies wait for it).
 */
export interface SnapshottedDeliveries {
  /** The deliveries (memory documents reading through to the attached snapshot, the schedule in a Map). */
  store: DeliveryStore;
  keyOf(item: DeliveryDocumentItem): string;
  isItem(value: unknown): value is DeliveryDocumentItem;
  /** The documents held in memory (those not only in the attached snapshot). */
  exportState(): DeliveryDocumentItem[];
  /** The header note of a snapshot taken now: every request not settled. */
  note(): PendingNote;
  /**
   * Reads through to `base` (undefined: nothing attached), and lists a group (a tenant's completed
   * index) from `file.range`; `file.note` is the attached snapshot's header note. With
   * `readsWaitFor`, reads (not applies) wait for it first (a replay after a damaged snapshot).
   */
  attach(
    base: ((key: string) => Promise<DeliveryDocumentItem | undefined>) | undefined,
    readsWaitFor?: Promise<unknown>,
    file?: { range(from: string, to: string): AsyncIterable<DeliveryDocumentItem>; note: unknown },
  ): void;
  /** Applies one record of the log, as a replay does (and remembers which requests it may have made due). */
  apply(record: LogRecord): Promise<void>;
  /** Schedules what is due (the snapshot's pending requests and those the tail touched), then marks the view built. */
  markBuilt(): Promise<void>;
}

const SEP = '\u0000';
const snapshotKey = (name: string, key: DocumentKey) =>
  typeof key === 'string' ? `${name}${SEP}${key}` : `${name}${SEP}${key.group}${SEP}${key.id}`;
const COLLECTIONS = [DELIVERY_RECORDS, DELIVERY_COMPLETED, DELIVERY_GONE];

export function createSnapshottedDeliveries(documents: MemoryDocumentStore, opts: { inflightLeaseMs: number }): SnapshottedDeliveries {
  let base: ((key: string) => Promise<DeliveryDocumentItem | undefined>) | undefined;
  let range: ((from: string, to: string) => AsyncIterable<DeliveryDocumentItem>) | undefined;
  let readsWait: Promise<unknown> = Promise.resolve();
  /** The requests not settled at the attached snapshot. */
  let pendingAtSnapshot = new Set<string>();
  /** The requests the replay after the snapshot delivered or replayed (maybe due now). */
  const touched = new Set<string>();
  const held = new Map<string, MemoryDocumentCollection<unknown>>();

  /** A collection of `documents` that reads a document it does not hold from the attached snapshot, and keeps it. */
  function readThrough<T>(spec: DocumentCollectionSpec): DocumentCollection<T> {
    const mine = documents.collection<T>(spec);
    held.set(spec.name, mine);
    // Applies read through here too, so nothing here waits for `readsWait` (a recovery's replay applies).
    const get = async (key: DocumentKey) => {
      const found = await mine.get(key);
      const from = base;
      if (found || !from) return found;
      const item = await from(snapshotKey(spec.name, key));
      // Another apply (or a recovery's replay) may have written it meanwhile: the view's wins.
      if (item && base === from && !(await mine.get(key))) mine.put(key, item.doc as T);
      return mine.get(key);
    };
    return {
      get,
      getMany: (keys) => Promise.all(keys.map(get)),
      async list(group) {
        const byId = new Map<string, T>();
        const from = range;
        if (from) {
          const prefix = `${spec.name}${SEP}${group}${SEP}`;
          for await (const item of from(prefix, `${spec.name}${SEP}${group}\u0001`)) byId.set(item.key.slice(prefix.length), item.doc as T);
        }
        for (const { key, doc } of mine.entries()) if (typeof key !== 'string' && key.group === group) byId.set(key.id, doc);
        return [...byId.values()];
      },
      compareAndSet: (key, expected, next, o) => mine.compareAndSet(key, expected, next, o),
      compareAndSetMany: (writes) => mine.compareAndSetMany(writes),
    };
  }

  const through: DocumentStore = {
    collection: readThrough,
    isMarked: (name) => documents.isMarked(name),
    mark: (name) => documents.mark(name),
    clear: (prefix) => documents.clear(prefix),
    ping: () => documents.ping(),
    close: () => documents.close(),
  };
  const inner = deliveryStoreOn(through, createMemoryDeliverySchedule(), { copies: true });
  const store: DeliveryStore = {
    ...inner,
    get: async (requestId) => (await readsWait, inner.get(requestId)),
    listCompleted: async (tenantId, fromMs, toMs) => (await readsWait, inner.listCompleted(tenantId, fromMs, toMs)),
    isGone: async (tenantId, url) => (await readsWait, inner.isGone(tenantId, url)),
  };
  const recordsHeld = () => held.get(DELIVERY_RECORDS.name)?.entries() ?? [];

  return {
    store,
    keyOf: (item) => item.key,
    isItem: (value): value is DeliveryDocumentItem =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as DeliveryDocumentItem).key === 'string' &&
      COLLECTIONS.some((c) => (value as DeliveryDocumentItem).key.startsWith(`${c.name}${SEP}`)) &&
      typeof (value as DeliveryDocumentItem).doc === 'object' &&
      (value as DeliveryDocumentItem).doc !== null,
    exportState() {
      const out: DeliveryDocumentItem[] = [];
      for (const c of COLLECTIONS) {
        for (const { key, doc } of held.get(c.name)?.entries() ?? []) out.push({ key: snapshotKey(c.name, key), doc });
      }
      return out;
    },
    note() {
      // Held records say for themselves; the others did not change since the snapshot they are read from.
      const pending = new Set(pendingAtSnapshot);
      for (const { key, doc } of recordsHeld()) {
        const id = key as string;
        if (deliverySettled(doc as Parameters<typeof deliverySettled>[0])) pending.delete(id);
        else pending.add(id);
      }
      return { pending: [...pending] };
    },
    attach(next, readsWaitFor, file) {
      base = next;
      range = next && file ? (from, to) => file.range(from, to) : undefined;
      readsWait = (readsWaitFor ?? Promise.resolve()).catch(() => undefined);
      // A recovery detaches the file and replays the whole log, which touches every request: nothing is lost.
      if (!next) return;
      const pending = (file?.note as Partial<PendingNote> | undefined)?.pending;
      pendingAtSnapshot = new Set(Array.isArray(pending) ? pending.filter((p) => typeof p === 'string') : []);
    },
    async apply({ event }) {
      if (!(deliversWebhook(event) || withdrawsWebhook(event) || isWebhookEvent(event))) return;
      await store.apply(event);
      if (deliversWebhook(event) || event.type === 'WebhookReplayRequested') touched.add(event.requestId);
    },
    async markBuilt() {
      for (const requestId of new Set([...pendingAtSnapshot, ...touched])) {
        const record = await store.get(requestId);
        const dueAt = record ? deliveryDueAt(foldDelivery(record), opts.inflightLeaseMs) : undefined;
        if (dueAt !== undefined) await store.schedule(requestId, dueAt, { ifAbsent: true });
      }
      touched.clear();
      await store.markBuilt();
    },
  };
}
