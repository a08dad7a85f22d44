import {
  completedDeliveryProjection,
  deliveryRecordProjection,
  deliverySettled,
  goneUrlProjection,
  type CompletedDelivery,
  type DeliveryRecord,
  type GoneUrl,
} from '@pressroom/domain';
import type { PressroomEvent } from '@pressroom/schemas';
import type { DocumentStore } from '../ports/document-store.ts';
import {
  DELIVERIES_BUILT_MARKER,
  DELIVERY_COMPLETED,
  DELIVERY_DOCUMENTS,
  DELIVERY_GONE,
  DELIVERY_RECORDS,
  type DeliverySchedule,
  type DeliveryStore,
} from '../ports/delivery-store.ts';
import { project } from './project.ts';
import { documentBuiltMarker } from './document-markers.ts';

/**
 * The deliveries view over any document store and schedule: `apply` runs the delivery
 * projections (the record first; then, for an outcome that holds the record's slot, the
 * tenant's completed index; for a 410, the tenant's gone URLs), the reads are the view's query
 * side, the schedule methods are the schedule's. Both adapters are this (memory:
 * `createMemoryDeliveryStore`; Redis: `createRedisDeliveryStore`); `copies` makes `apply` keep
 * and reads hand out copies, for a store that keeps what it is given (memory).
 *
 * Each step is idempotent, so a redelivery after a crash between two steps completes the rest.
 */
export function deliveryStoreOn(
  store: DocumentStore,
  schedule: DeliverySchedule,
  opts: { copies: boolean; settledTtlMs?: number },
): DeliveryStore {
  const records = store.collection<DeliveryRecord>(DELIVERY_RECORDS);
  // A settled record (delivered, failed, withdrawn) lives settledTtlMs after its last write; a pending one for ever.
  const settledTtlMs = opts.settledTtlMs ?? 0;
  const recordProjection =
    settledTtlMs > 0
      ? { ...deliveryRecordProjection, ttlMsOf: (doc: DeliveryRecord) => (deliverySettled(doc) ? settledTtlMs : 0) }
      : deliveryRecordProjection;
  const completed = store.collection<CompletedDelivery>(DELIVERY_COMPLETED);
  const gone = store.collection<GoneUrl>(DELIVERY_GONE);
  const copy = <T>(value: T): T => (opts.copies ? structuredClone(value) : value);

  return {
    async apply(event: PressroomEvent) {
      if (!deliveryRecordProjection.canHandle(event)) return;
      const kept = copy(event);
      const record = await project(records, recordProjection, kept);
      // Listed for replay only when this outcome holds the slot (not behind a withdrawal).
      if (record?.completion?.eventId === kept.eventId) await project(completed, completedDeliveryProjection, kept);
      await project(gone, goneUrlProjection, kept);
    },
    async get(requestId) {
      const record = (await records.get(requestId))?.doc;
      return record && copy(record);
    },
    async listCompleted(tenantId, fromMs, toMs) {
      return (await completed.list(tenantId))
        .filter((c) => c.completedAtMs >= fromMs && c.completedAtMs < toMs)
        .sort((a, b) => a.completedAtMs - b.completedAtMs || a.requestId.localeCompare(b.requestId))
        .map((c) => c.requestId);
    },
    async isGone(tenantId, url) {
      return (await gone.get({ group: tenantId, id: url })) !== undefined;
    },
    schedule: (requestId, dueAtMs, scheduleOpts) => schedule.schedule(requestId, dueAtMs, scheduleOpts),
    claimDue: (nowMs, leaseMs, limit) => schedule.claimDue(nowMs, leaseMs, limit),
    nextDueAt: () => schedule.nextDueAt(),
    unschedule: (requestId) => schedule.unschedule(requestId),
    async clear() {
      await Promise.all([store.clear(DELIVERY_DOCUMENTS), schedule.clear()]);
    },
    ...documentBuiltMarker(store, DELIVERIES_BUILT_MARKER),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
