import type { BatchCompleted, RenderCompleted, RenderWithdrawn, WebhookAttempted, WebhookEvent } from '@pressroom/schemas';
import { goneUrlOf, isWebhookEvent, withdrawsWebhook, type DeliveryRecord } from './delivery.ts';
import type { Projection } from './projection.ts';

/** The events the deliveries view reads: outcomes, withdrawals of a webhook's request, webhook events. */
export type DeliveryEvent = RenderCompleted | BatchCompleted | RenderWithdrawn | WebhookEvent;

/** An entry of a tenant's completed results (what a replay by time range lists). */
export interface CompletedDelivery {
  requestId: string;
  /** When the result was completed (ms), the order of a replay. */
  completedAtMs: number;
}

/** A URL of a tenant that answered 410: it is never called again. */
export interface GoneUrl {
  url: string;
  /** When the first 410 was recorded. */
  since: string;
}

const isRequestEvent = (event: unknown): event is { type: string; requestId: string; tenantId: string } =>
  typeof event === 'object' && event !== null && 'type' in event && 'requestId' in event && 'tenantId' in event;

/** An outcome that takes a delivery's terminal slot (whatever its mode: the record is kept, delivery decides). */
const isOutcome = (event: { type: string }): event is RenderCompleted | BatchCompleted =>
  event.type === 'RenderSucceeded' || event.type === 'RenderFailed' || event.type === 'BatchCompleted';

/**
 * The delivery record of a request (`DeliveryRecord`, folded into its view by `foldDelivery`):
 * the first terminal event holds the completion slot (an outcome, or the withdrawal of a request
 * that named a webhook, after which nothing is delivered); each webhook event is kept once per
 * eventId, so a redelivered event changes nothing.
 */
export const deliveryRecordProjection: Projection<DeliveryEvent, DeliveryRecord> = {
  canHandle: (event): event is DeliveryEvent =>
    isRequestEvent(event) && (isOutcome(event) || withdrawsWebhook(event as DeliveryEvent) || isWebhookEvent(event as DeliveryEvent)),
  keyOf: (event) => event.requestId,
  evolve(current, event) {
    const base: DeliveryRecord = current ?? { requestId: event.requestId, tenantId: event.tenantId, events: [] };
    if (isWebhookEvent(event)) {
      if (current?.events.some((e) => e.eventId === event.eventId)) return current;
      return { ...base, events: [...base.events, event] };
    }
    if (current?.completion) return current; // first terminal wins
    return { ...base, completion: event };
  },
};

/**
 * A tenant's completed results by time, for replays of a range: one entry per request, written
 * once. Only an outcome that holds its record's slot is listed (not one behind a withdrawal):
 * the caller projects an outcome here after `deliveryRecordProjection` kept it.
 */
export const completedDeliveryProjection: Projection<RenderCompleted | BatchCompleted, CompletedDelivery> = {
  canHandle: (event): event is RenderCompleted | BatchCompleted => isRequestEvent(event) && isOutcome(event),
  keyOf: (event) => ({ group: event.tenantId, id: event.requestId }),
  evolve: (current, event) => current ?? { requestId: event.requestId, completedAtMs: Date.parse(event.occurredAt) },
};

const DAY_MS = 86_400_000;

/** The UTC day (days since the epoch) a time falls on: a bucket of the completed results by day. */
const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** The group of a tenant's completed results of one day: what the projection writes and a replay reads. */
const dayGroup = (tenantId: string, day: number) => `${tenantId}:${day}`;

/**
 * The completed results of a store whose records expire (Redis): grouped by tenant and UTC day
 * (`<tenantId>:<day>`), each day living `keepMs` after its last write, so the index is forgotten
 * with the records it points to instead of growing for ever (one hash per tenant did).
 */
export function completedDeliveryByDayProjection(keepMs: number): Projection<RenderCompleted | BatchCompleted, CompletedDelivery> {
  return {
    ...completedDeliveryProjection,
    keyOf: (event) => ({ group: dayGroup(event.tenantId, dayOf(Date.parse(event.occurredAt))), id: event.requestId }),
    ttlMsOf: () => keepMs,
  };
}

/**
 * The groups of `completedDeliveryByDayProjection` a replay of [fromMs, toMs) reads: the days of
 * the range, within the days the index can still hold (kept `keepMs`, so none older than that
 * before now) and none after tomorrow (no result completes in the future; a day of clock skew is
 * allowed). So a range of years costs what the index's days cost, not a read per day of it.
 */
export function completedDayGroups(tenantId: string, fromMs: number, toMs: number, nowMs: number, keepMs: number): string[] {
  const first = Math.max(dayOf(fromMs), dayOf(nowMs - keepMs));
  const last = Math.min(dayOf(toMs - 1), dayOf(nowMs) + 1);
  const groups: string[] = [];
  for (let day = first; day <= last; day++) groups.push(dayGroup(tenantId, day));
  return groups;
}

/** The URLs of a tenant that answered 410 (see `goneUrlOf`), one entry per URL, written once. */
export const goneUrlProjection: Projection<WebhookAttempted, GoneUrl> = {
  canHandle: (event): event is WebhookAttempted =>
    isRequestEvent(event) && event.type === 'WebhookAttempted' && goneUrlOf(event as WebhookAttempted) !== undefined,
  keyOf: (event) => ({ group: event.tenantId, id: event.data.url }),
  evolve: (current, event) => current ?? { url: event.data.url, since: event.occurredAt },
};
