import { isTerminal, statusProjection } from '@pressroom/domain';
import type { PressroomEvent, StatusViewEntry } from '@pressroom/schemas';
import { STATUS_BUILT_MARKER, STATUS_DOCUMENTS, type StatusView } from '../ports/status-view.ts';
import { documentBuiltMarker } from '../projections/document-markers.ts';
import { project, projectMany } from '../projections/project.ts';
import { createMemoryDocumentStore, type MemoryDocumentStore } from './memory-document-store.ts';

/**
 * The embedded profile's status view: the status projection's documents in a memory document
 * store (its own unless given one), rebuilt from the log at start. Waiters watch their entry's
 * announcement, which the write that makes the entry terminal sends. Callers get copies, so
 * nothing they do to a result can change the view.
 */
export interface MemoryStatusView extends StatusView {
  /** Every entry, for a snapshot (see view-snapshots.ts). */
  exportState(): StatusViewEntry[];
  /** Replaces the entries with a snapshot's (no waiter can be waiting yet: done before serving). */
  importState(entries: StatusViewEntry[]): void;
  /**
   * Reads through to `base` (an indexed snapshot on disk) for an entry the view does not hold;
   * the entry found is kept from then on (its next event applies to it). Undefined: detached.
   */
  attachBase(base: ((requestId: string) => Promise<StatusViewEntry | undefined>) | undefined, readsWaitFor?: Promise<unknown>): void;
  /**
   * Drops the finished entries of `saved` (what a snapshot just wrote, as exportState gave it)
   * that no event changed since, once that snapshot is attached: they are read through to it from
   * then on, so memory holds only what changed since the last snapshot, not every render since
   * the start. Unfinished entries stay (their events are still coming). Returns how many went.
   */
  forgetSaved(saved: readonly StatusViewEntry[]): number;
}

export function createMemoryStatusView(store: MemoryDocumentStore = createMemoryDocumentStore()): MemoryStatusView {
  const held = store.collection<StatusViewEntry>(STATUS_DOCUMENTS);
  const closers = new Set<() => void>();
  let base: ((requestId: string) => Promise<StatusViewEntry | undefined>) | undefined;
  /** Reads wait for it (a replay after a damaged snapshot); applies do not. */
  let readsWait: Promise<unknown> = Promise.resolve();
  // The entries held, reading through to the attached snapshot for the others (a start with a
  // snapshot does not load a million entries; each is read when first asked for or changed).
  const docs: typeof held = {
    ...held,
    async get(key) {
      for (;;) {
        const found = await held.get(key);
        const from = base;
        if (found || !from || typeof key !== 'string') return found;
        const entry = await from(key);
        // Attached to other files meanwhile (a newer snapshot, which may hold what this view has
        // just forgotten; or none, for a recovery): ask again.
        if (base !== from) continue;
        // Another apply may have written it meanwhile: the view's wins.
        if (entry && !(await held.get(key))) held.put(key, entry);
        return held.get(key);
      }
    },
    async getMany(keys) {
      return Promise.all(keys.map((k) => docs.get(k)));
    },
  };

  const read = async (requestId: string): Promise<StatusViewEntry | undefined> => {
    await readsWait;
    const entry = (await docs.get(requestId))?.doc;
    return entry && structuredClone(entry);
  };

  return {
    async apply(event: PressroomEvent) {
      const entry = await project(docs, statusProjection, event);
      return entry && structuredClone(entry);
    },

    get: read,

    async applyMany(events) {
      await projectMany(docs, statusProjection, events);
    },

    async getMany(requestIds) {
      return (await docs.getMany([...requestIds])).map((v) => v && structuredClone(v.doc));
    },

    waitForTerminal(requestId, timeoutMs) {
      return new Promise((resolve, reject) => {
        let stop = () => {};
        const finish = () => {
          clearTimeout(timer);
          stop();
          closers.delete(finish);
          read(requestId).then(resolve, reject);
        };
        // Listen before looking, so a transition in between cannot be missed.
        stop = store.watch(STATUS_DOCUMENTS.channel, requestId, finish);
        closers.add(finish);
        const timer = setTimeout(finish, Math.max(0, timeoutMs));
        void docs.get(requestId).then((entry) => {
          if (closers.has(finish) && isTerminal(entry?.doc)) finish();
        });
      });
    },

    exportState: () => held.all(),
    importState(state) {
      void store.clear(STATUS_DOCUMENTS.name);
      for (const entry of state) held.put(entry.requestId, entry);
    },
    forgetSaved(saved) {
      if (!base) return 0; // nothing to read them through to
      let forgotten = 0;
      for (const entry of saved) if (isTerminal(entry) && held.forgetIfUnchanged(entry.requestId, entry)) forgotten++;
      return forgotten;
    },
    attachBase(next, readsWaitFor) {
      base = next;
      readsWait = (readsWaitFor ?? Promise.resolve()).catch(() => undefined);
    },

    ...documentBuiltMarker(store, STATUS_BUILT_MARKER),
    async clear() {
      base = undefined;
      await store.clear(STATUS_DOCUMENTS.name);
    },

    async ping() {},

    /** Pending waiters resolve with the entry as it stands. */
    async close() {
      for (const finish of [...closers]) finish();
    },
  };
}
