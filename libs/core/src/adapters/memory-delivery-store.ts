import type { DeliverySchedule, DeliveryStore } from '../ports/delivery-store.ts';
import { deliveryStoreOn } from '../projections/delivery-documents.ts';
import { createMemoryDocumentStore, type MemoryDocumentStore } from './memory-document-store.ts';

/**
 * The embedded profile's deliveries: the delivery projections' documents in a memory document
 * store (its own unless given one) and the schedule in a Map, rebuilt from the log when first
 * used after the process started (see `selfRebuildingDeliveries`). One process, so a Map is the
 * whole story for the schedule.
 */
export function createMemoryDeliveryStore(documents: MemoryDocumentStore = createMemoryDocumentStore()): DeliveryStore {
  return deliveryStoreOn(documents, createMemoryDeliverySchedule(), { copies: true });
}

export function createMemoryDeliverySchedule(): DeliverySchedule {
  const due = new Map<string, number>();
  return {
    async schedule(requestId, dueAtMs, opts) {
      if (opts?.ifAbsent && due.has(requestId)) return;
      due.set(requestId, dueAtMs);
    },
    async claimDue(nowMs, leaseMs, limit) {
      const claimed = [...due]
        .filter(([, at]) => at <= nowMs)
        .sort((a, b) => a[1] - b[1])
        .slice(0, limit)
        .map(([id]) => id);
      for (const id of claimed) due.set(id, nowMs + leaseMs);
      return claimed;
    },
    async nextDueAt() {
      let min: number | undefined;
      for (const at of due.values()) if (min === undefined || at < min) min = at;
      return min;
    },
    async unschedule(requestId) {
      due.delete(requestId);
    },
    async clear() {
      due.clear();
    },
  };
}
