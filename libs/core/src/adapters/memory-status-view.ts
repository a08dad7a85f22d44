import { EventEmitter } from 'node:events';
import { evolveStatus, isTerminal } from '@pressroom/domain';
import type { PressroomEvent, StatusViewEntry } from '@pressroom/schemas';
import type { StatusView } from '../ports/status-view.ts';

/**
 * The embedded profile's status view: a Map in this process, rebuilt from the log at start.
 * Waiters listen on an EventEmitter and are woken by the apply that makes an entry terminal.
 * Callers get copies, so nothing they do to a result can change the view.
 */
export interface MemoryStatusView extends StatusView {
  /** Every entry, for a snapshot (see view-snapshots.ts). */
  exportState(): StatusViewEntry[];
  /** Replaces the entries with a snapshot's (no waiter can be waiting yet: done before serving). */
  importState(entries: StatusViewEntry[]): void;
}

export function createMemoryStatusView(): MemoryStatusView {
  const entries = new Map<string, StatusViewEntry>();
  const terminal = new EventEmitter();
  terminal.setMaxListeners(0); // one listener per waiting sync request; no leak warning
  const closers = new Set<() => void>();

  const read = (requestId: string): StatusViewEntry | undefined => {
    const entry = entries.get(requestId);
    return entry && structuredClone(entry);
  };

  let built = false;
  return {
    async apply(event: PressroomEvent) {
      const current = entries.get(event.requestId);
      const next = evolveStatus(current, event);
      if (next === undefined || next === current) return read(event.requestId);
      entries.set(event.requestId, next);
      if (!isTerminal(current) && isTerminal(next)) terminal.emit(event.requestId);
      return read(event.requestId);
    },

    async get(requestId) {
      return read(requestId);
    },

    waitForTerminal(requestId, timeoutMs) {
      return new Promise((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          terminal.off(requestId, finish);
          closers.delete(finish);
          resolve(read(requestId));
        };
        // Listen before looking, so a transition in between cannot be missed.
        terminal.on(requestId, finish);
        closers.add(finish);
        const timer = setTimeout(finish, Math.max(0, timeoutMs));
        if (isTerminal(entries.get(requestId))) finish();
      });
    },

    exportState: () => [...entries.values()],
    importState(state) {
      entries.clear();
      for (const entry of state) entries.set(entry.requestId, entry);
    },

    isBuilt: async () => built,
    async markBuilt() {
      built = true;
    },
    async clear() {
      built = false;
      entries.clear();
    },

    async ping() {},

    /** Pending waiters resolve with the entry as it stands. */
    async close() {
      for (const finish of [...closers]) finish();
    },
  };
}
