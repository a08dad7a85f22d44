import { deliversWebhook, foldDelivery, isWebhookEvent, notFound, withdrawsWebhook } from '@pressroom/domain';
import type { Clock, DeliveryStore, EventFactory, EventLog, Ids, Logger, TopicNames } from '@pressroom/core';

/** The topics the deliveries view is built from. */
export const deliveryTopics = (t: TopicNames) => [t.completed, t.webhooks];

/**
 * Wipes the deliveries and replays them from the log; with `schedule`, every delivery still
 * pending is scheduled again (when its last attempt said, or now). Returns the events applied.
 */
export async function rebuildDeliveries(
  deps: { log: EventLog; deliveries: DeliveryStore; topics: TopicNames; clock: Clock; logger: Logger },
  opts: { schedule: boolean },
): Promise<number> {
  await deps.deliveries.clear();
  const requests = new Set<string>();
  const n = await deps.log.readAll(deliveryTopics(deps.topics), async ({ event }) => {
    if (deliversWebhook(event) || withdrawsWebhook(event) || isWebhookEvent(event)) {
      await deps.deliveries.apply(event);
      if (deliversWebhook(event)) requests.add(event.requestId);
    }
  });
  let pending = 0;
  if (opts.schedule) {
    const now = deps.clock.now().getTime();
    for (const requestId of requests) {
      const record = await deps.deliveries.get(requestId);
      if (!record) continue;
      const { view } = foldDelivery(record);
      if (view.state !== 'PENDING' || foldDelivery(record).withdrawn) continue;
      pending++;
      await deps.deliveries.schedule(requestId, Math.max(now, view.nextAttemptAt ? Date.parse(view.nextAttemptAt) : now));
    }
  }
  deps.logger.info('deliveries rebuilt from the log', { events: n, pending });
  return n;
}

export type ReplaySelector = { requestId: string } | { fromMs: number; toMs: number };

/**
 * Asks the dispatcher to deliver results again: appends one WebhookReplayRequested per
 * request (keyed by requestId, so it stays in order with that request's webhook events).
 * Nothing else is written; the render events are untouched. A requestId that is not one of
 * the tenant's async results with a webhook is NOT_FOUND.
 */
export async function requestWebhookReplay(
  deps: { log: EventLog; deliveries: DeliveryStore; topics: TopicNames; event: EventFactory; ids: Ids },
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
