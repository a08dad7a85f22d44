import {
  completedDayGroups,
  completedDeliveryByDayProjection,
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
  DELIVERY_COMPLETED_BY_DAY,
  DELIVERY_DOCUMENTS,
  DELIVERY_GONE,
  DELIVERY_RECORDS,
  type DeliverySchedule,
  type DeliveryStore,
} from '../ports/delivery-store.ts';
import { project } from './project.ts';
import { documentBuiltMarker } from './document-markers.ts';

/**
 * How much longer than a settled record a day of the completed results is kept: a delivery
 * settles after its completion (the default retries span about a day), and its record lives
 * settledTtlMs after that.
 */
const COMPLETED_INDEX_MARGIN_MS = 7 * 86_400_000;

/** Records read per round trip when a replay by range checks which are still there. */
const RECORD_READS_AT_ONCE = 500;

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
  // Where records expire, so do the completed results, by day (a hash per tenant grew for ever);
  // a replay by range then reads the days the index can still hold and lists only results whose
  // record is still there (the others would be replayed to nobody).
  const expiring = settledTtlMs > 0;
  const keepMs = settledTtlMs + COMPLETED_INDEX_MARGIN_MS;
  const completedProjection = expiring ? completedDeliveryByDayProjection(keepMs) : completedDeliveryProjection;
  const completed = store.collection<CompletedDelivery>(expiring ? DELIVERY_COMPLETED_BY_DAY : DELIVERY_COMPLETED);
  const gone = store.collection<GoneUrl>(DELIVERY_GONE);
  const copy = <T>(value: T): T => (opts.copies ? structuredClone(value) : value);

  return {
    async apply(event: PressroomEvent) {
      if (!deliveryRecordProjection.canHandle(event)) return;
      const kept = copy(event);
      const record = await project(records, recordProjection, kept);
      // Listed for replay only when this outcome holds the slot (not behind a withdrawal).
      if (record?.completion?.eventId === kept.eventId) await project(completed, completedProjection, kept);
      await project(gone, goneUrlProjection, kept);
    },
    async get(requestId) {
      const record = (await records.get(requestId))?.doc;
      return record && copy(record);
    },
    async listCompleted(tenantId, fromMs, toMs) {
      const groups = expiring ? completedDayGroups(tenantId, fromMs, toMs, Date.now(), keepMs) : [tenantId];
      const ids = (await Promise.all(groups.map((group) => completed.list(group))))
        .flat()
        .filter((c) => c.completedAtMs >= fromMs && c.completedAtMs < toMs)
        .sort((a, b) => a.completedAtMs - b.completedAtMs || a.requestId.localeCompare(b.requestId))
        .map((c) => c.requestId);
      if (!expiring) return ids;
      const listed: string[] = [];
      // In slices: a record is a few KB, and a range can list many thousands.
      for (let i = 0; i < ids.length; i += RECORD_READS_AT_ONCE) {
        const slice = ids.slice(i, i + RECORD_READS_AT_ONCE);
        const found = await records.getMany(slice);
        listed.push(...slice.filter((_, j) => found[j] !== undefined));
      }
      return listed;
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
