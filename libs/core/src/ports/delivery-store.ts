import type { BuiltMarker } from './built-marker.ts';
import type { DeliveryRecord } from '@pressroom/domain';
import type { PressroomEvent } from '@pressroom/schemas';
import type { DocumentCollectionSpec } from './document-store.ts';

/**
 * Where both deliveries adapters keep their documents (the delivery projections of
 * @pressroom/domain), all under `delivery:` (not the `deliveries:` of the layout before the
 * projections, so an upgraded deployment finds no marker and rebuilds the view from the log):
 * a record per requestId, the completed results and the gone URLs grouped by tenant, the built
 * marker beside them (not a request id: those are UUIDs).
 */
export const DELIVERY_DOCUMENTS = 'delivery:';
export const DELIVERY_RECORDS = { name: 'delivery:record:' } satisfies DocumentCollectionSpec;
export const DELIVERY_COMPLETED = { name: 'delivery:completed:' } satisfies DocumentCollectionSpec;
/** The completed results of a store whose records expire (Redis), by tenant and day: see completedDeliveryByDayProjection. */
export const DELIVERY_COMPLETED_BY_DAY = { name: 'delivery:completed-day:' } satisfies DocumentCollectionSpec;
export const DELIVERY_GONE = { name: 'delivery:gone:' } satisfies DocumentCollectionSpec;
/**
 * `:2`: the completed results of an expiring store moved to days (DELIVERY_COMPLETED_BY_DAY), so a
 * store of the layout before finds no marker and replays the log into the new index. The hashes
 * of that layout (`delivery:completed:<tenantId>`) are left to `ops webhooks rebuild`, which wipes
 * everything under `delivery:`.
 */
export const DELIVERIES_BUILT_MARKER = 'delivery:~built:2';
/** The name of the schedule beside them (Redis: a sorted set). */
export const DELIVERY_SCHEDULE = 'delivery:due';
/** Where deliveries lived before they were projections; a wipe (`ops webhooks rebuild`) frees it too. */
export const LEGACY_DELIVERY_DOCUMENTS = 'deliveries:';

/**
 * The schedule of due delivery attempts, beside the projected documents. Not a projection: the
 * dispatchers write it (each claim leases its entries with their clock), and a claim takes the
 * earliest due entries atomically, which a per-document compare-and-set cannot do without
 * scanning every document. It is still rebuilt from the log with the view (`replayDeliveries`).
 * Guarantees as `DeliveryStore`'s schedule methods.
 */
export interface DeliverySchedule {
  schedule(requestId: string, dueAtMs: number, opts?: { ifAbsent?: boolean }): Promise<void>;
  claimDue(nowMs: number, leaseMs: number, limit: number): Promise<string[]>;
  nextDueAt(): Promise<number | undefined>;
  unschedule(requestId: string): Promise<void>;
  clear(): Promise<void>;
}

/**
 * The webhook deliveries: a view of every async result's delivery (the completion and its
 * webhook events, folded by `foldDelivery` in @pressroom/domain) and the schedule of due
 * attempts. Both are derived from the log and can be wiped and rebuilt from it.
 *
 * Adapters guarantee:
 * - `apply` is idempotent: the first completion of a request is kept, later ones are ignored;
 *   a webhook event is stored once per eventId; a WebhookAttempted that saw 410 marks its URL
 *   gone for the tenant. Events of other types are ignored. Safe from several processes.
 * - the schedule holds at most one entry per request. `claimDue` hands each due entry to one
 *   caller only and leases it (moves it `leaseMs` ahead), so an attempt whose process dies is
 *   due again when the lease ends; the caller then `schedule`s the next attempt or `unschedule`s.
 */
export interface DeliveryStore extends BuiltMarker {
  apply(event: PressroomEvent): Promise<void>;
  get(requestId: string): Promise<DeliveryRecord | undefined>;
  /** Requests of a tenant whose completion happened in [fromMs, toMs), oldest first. */
  listCompleted(tenantId: string, fromMs: number, toMs: number): Promise<string[]>;
  isGone(tenantId: string, url: string): Promise<boolean>;
  /** Due at `dueAtMs`; with `ifAbsent`, an entry that exists (maybe leased) is left as it is. */
  schedule(requestId: string, dueAtMs: number, opts?: { ifAbsent?: boolean }): Promise<void>;
  claimDue(nowMs: number, leaseMs: number, limit: number): Promise<string[]>;
  /** When the earliest entry is due, or undefined when the schedule is empty. */
  nextDueAt(): Promise<number | undefined>;
  unschedule(requestId: string): Promise<void>;
  /** Removes every record, mark and schedule entry, and the built marker (before a rebuild from the log). */
  clear(): Promise<void>;
  /**
   * Whether a rebuild from the log completed and nothing was lost since: the marker lives
   * exactly as long as the data (the same Redis), so a FLUSHALL or a restart without
   * persistence clears it with the records and the schedule.
   */
  isBuilt(): Promise<boolean>;
  markBuilt(): Promise<void>;
  /**
   * Rebuilds the deliveries now when they need it (a self-rebuilding store: see
   * selfRebuildingDeliveries); resolves when they are built. Stores that never rebuild have none.
   */
  warmUp?(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
