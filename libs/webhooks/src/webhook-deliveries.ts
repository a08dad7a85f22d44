import { deliversWebhook, deliveryDueAt, foldDelivery, isWebhookEvent, notFound, withdrawsWebhook } from '@pressroom/domain';
import {
  healingRead,
  isEmpty,
  rebuilder,
  replayView,
  type DeliveryStore,
  type EventFactory,
  type EventLog,
  type Ids,
  type Logger,
  type TopicNames,
} from '@pressroom/core';

/** The topics the deliveries view is built from. */
export const deliveryTopics = (t: TopicNames) => [t.completed, t.webhooks];

/** How long a claimed attempt is leased past its time limit (signing, recording). */
const LEASE_MARGIN_MS = 5_000;

/**
 * How long a dispatcher holds a claimed delivery: one attempt's time limit and a margin. An
 * attempt whose process dies is due again when its lease ends.
 */
export function deliveryLeaseMs(webhookTimeoutMs: number): number {
  return webhookTimeoutMs + LEASE_MARGIN_MS;
}

export interface DeliveriesRebuildDeps {
  log: EventLog;
  topics: TopicNames;
  logger?: Logger;
  /**
   * The lease of an attempt that may still be in flight in a running dispatcher (see
   * `deliveryDueAt`); 0 where none can be (the only dispatcher is the one starting).
   */
  inflightLeaseMs: number;
  /**
   * How the deliveries are rebuilt when not built; default: `replayDeliveries` (the whole log).
   * The embedded profile restores them from their snapshot and the log after it instead
   * (`createSnapshottedDeliveries`); then an apply waits for the rebuild too, since a record made
   * from a later event before the snapshot is attached would hide the snapshot's.
   */
  rebuild?: () => Promise<unknown>;
}

/**
 * Replays every delivery event into the store, schedules every delivery the log says is still
 * to be sent (when its next attempt is due, see `deliveryDueAt`), and marks the store built.
 * No wipe first: applies are idempotent, and a schedule entry that exists (an attempt leased
 * now, or scheduled by a dispatcher meanwhile) is left as it is, so dispatchers running
 * meanwhile lose nothing and an attempt is not made twice at once because of the rebuild.
 * Returns the events visited.
 */
export function replayDeliveries(deliveries: DeliveryStore, deps: DeliveriesRebuildDeps): Promise<number> {
  const requests = new Set<string>();
  return replayView(deliveries, deps, {
    name: 'webhook deliveries',
    topics: deliveryTopics(deps.topics),
    visit: async ({ event }) => {
      if (deliversWebhook(event) || withdrawsWebhook(event) || isWebhookEvent(event)) {
        await deliveries.apply(event);
        if (deliversWebhook(event) || event.type === 'WebhookReplayRequested') requests.add(event.requestId);
      }
    },
    finish: async () => {
      let pending = 0;
      for (const requestId of requests) {
        const record = await deliveries.get(requestId);
        const dueAt = record ? deliveryDueAt(foldDelivery(record), deps.inflightLeaseMs) : undefined;
        if (dueAt === undefined) continue;
        pending++;
        await deliveries.schedule(requestId, dueAt, { ifAbsent: true });
      }
      return { pending };
    },
  });
}

/**
 * Wipes the deliveries and replays them from the log (`ops webhooks rebuild`); with
 * `schedule: false` the schedule is left empty (a one-off reader such as `ops webhooks replay`
 * on the embedded profile). Returns the events applied.
 */
export async function rebuildDeliveries(
  deps: { log: EventLog; deliveries: DeliveryStore; topics: TopicNames; logger: Logger; config?: { webhookTimeoutMs: number } },
  opts: { schedule: boolean },
): Promise<number> {
  await deps.deliveries.clear();
  if (opts.schedule) {
    return replayDeliveries(deps.deliveries, {
      ...deps,
      inflightLeaseMs: deps.config ? deliveryLeaseMs(deps.config.webhookTimeoutMs) : 0,
    });
  }
  return deps.log.readAll(deliveryTopics(deps.topics), async ({ event }) => {
    if (deliversWebhook(event) || withdrawsWebhook(event) || isWebhookEvent(event)) await deps.deliveries.apply(event);
  });
}

/**
 * The deliveries, made to rebuild themselves like the status and catalog views: before
 * handing out due work (`claimDue`) the store's marker is checked, and a store that is not
 * built (a fresh or flushed Redis, a Redis restarted without persistence, an embedded process
 * that just started) is first rebuilt from the log, records and schedule, so no pending or
 * retrying delivery is lost and none is claimed from half a view. A read that finds a record
 * missing or without its completion, or no completed results, checks the marker the same
 * way. One rebuild at a time per process; a failed one is retried by the next caller.
 */
export function selfRebuildingDeliveries(store: DeliveryStore, deps: DeliveriesRebuildDeps): DeliveryStore {
  const rebuild = deps.rebuild;
  const ensureBuilt = rebuilder(store, rebuild ?? (() => replayDeliveries(store, deps)));
  return {
    apply: rebuild ? async (event) => void (await ensureBuilt(), await store.apply(event)) : (event) => store.apply(event),
    // A record without its completion is a miss too: the completion may be what was lost.
    get: healingRead(
      ensureBuilt,
      (requestId: string) => store.get(requestId),
      (found) => !found?.completion,
    ),
    listCompleted: healingRead(
      ensureBuilt,
      (tenantId: string, fromMs: number, toMs: number) => store.listCompleted(tenantId, fromMs, toMs),
      isEmpty,
    ),
    isGone: (tenantId, url) => store.isGone(tenantId, url),
    schedule: (requestId, dueAtMs, opts) => store.schedule(requestId, dueAtMs, opts),
    async claimDue(nowMs, leaseMs, limit) {
      await ensureBuilt();
      return store.claimDue(nowMs, leaseMs, limit);
    },
    nextDueAt: () => store.nextDueAt(),
    unschedule: (requestId) => store.unschedule(requestId),
    clear: () => store.clear(),
    isBuilt: () => store.isBuilt(),
    markBuilt: () => store.markBuilt(),
    warmUp: async () => void (await ensureBuilt()),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

export type ReplaySelector = { requestId: string } | { fromMs: number; toMs: number };

/** What a replay request needs: the deliveries to find the results, the log to append to. */
export interface WebhookReplayDeps {
  log: EventLog;
  deliveries: DeliveryStore;
  topics: TopicNames;
  event: EventFactory;
  ids: Ids;
}

/**
 * Asks the dispatcher to deliver results again: appends one WebhookReplayRequested per
 * request (keyed by requestId, so it stays in order with that request's webhook events).
 * Nothing else is written; the render events are untouched. A requestId that is not one of
 * the tenant's async results with a webhook is NOT_FOUND.
 */
export async function requestWebhookReplay(
  deps: WebhookReplayDeps,
  args: { tenantId: string; selector: ReplaySelector; requestedBy: 'api' | 'ops' },
): Promise<{ replayId: string; requestIds: string[] }> {
  const { tenantId, selector } = args;
  let requestIds: string[];
  if ('requestId' in selector) {
    const record = await deps.deliveries.get(selector.requestId);
    if (!record || record.tenantId !== tenantId || !record.completion || record.completion.type === 'RenderWithdrawn')
      throw notFound(`Delivery of ${selector.requestId}`);
    requestIds = [selector.requestId];
  } else {
    requestIds = await deps.deliveries.listCompleted(tenantId, selector.fromMs, selector.toMs);
  }
  const replayId = deps.ids.next();
  const events = requestIds.map((requestId) =>
    deps.event('WebhookReplayRequested', { requestId, tenantId }, { requestedBy: args.requestedBy, replayId }),
  );
  for (let i = 0; i < events.length; i += 500) await deps.log.append(deps.topics.webhooks, events.slice(i, i + 500));
  return { replayId, requestIds };
}
