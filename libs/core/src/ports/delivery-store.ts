import type { DeliveryRecord } from '@pressroom/domain';
import type { PressroomEvent } from '@pressroom/schemas';

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
export interface DeliveryStore {
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
  ping(): Promise<void>;
  close(): Promise<void>;
}
