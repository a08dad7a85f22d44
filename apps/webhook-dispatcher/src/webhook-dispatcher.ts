import { deliversWebhook, foldDelivery, isWebhookEvent, withdrawsWebhook } from '@pressroom/domain';
import { IGNORED, type Subscription } from '@pressroom/core';
import { type PressroomConfig } from '@pressroom/runtime';
import { deliveryLeaseMs, deliveryTopics } from '@pressroom/webhooks';
import { deliverAttempt, type AttemptDeps, type DispatcherSettings } from '@pressroom/webhooks';
import { startDeliveryLoop } from './delivery-loop.ts';

export type { DispatcherSettings } from '@pressroom/webhooks';

export interface WebhookDispatcherDeps extends Omit<AttemptDeps, 'random'> {
  random?: () => number;
  group?: string;
}

/** The dispatcher's settings from the configuration. */
export function dispatcherSettings(config: PressroomConfig): DispatcherSettings {
  return {
    timeoutMs: config.webhookTimeoutMs,
    policy: { allowPrivate: config.allowPrivateWebhooks, allowHttp: config.webhooks.allowHttp, allowedPorts: config.webhooks.allowedPorts },
    retry: config.webhooks.retry,
    concurrency: config.webhooks.concurrency,
  };
}

const POLL_MS = 1_000;

/**
 * Delivers the result of every async render to its webhook, signed (Standard Webhooks),
 * retried with back-off, every attempt recorded on the log.
 *
 * Two parts: a log consumer that only records what must be delivered (completions, replay
 * requests) in the deliveries store and schedules it, never calling a receiver, so a
 * partition never waits on one; and a delivery loop that makes due attempts with bounded
 * concurrency. The schedule lives in the store (Redis, or memory), a view of the log that
 * rebuilds itself when it finds itself lost or new (`selfRebuildingDeliveries`, set up by the
 * runtime), so retries survive restarts and a Redis that lost its data, and never block
 * other deliveries.
 */
export async function startWebhookDispatcher(deps: WebhookDispatcherDeps): Promise<Subscription> {
  const attemptDeps: AttemptDeps = { ...deps, random: deps.random ?? Math.random };
  const leaseMs = deliveryLeaseMs(deps.settings.timeoutMs);
  const loop = startDeliveryLoop({
    claimDue: (limit) => deps.deliveries.claimDue(deps.clock.now().getTime(), leaseMs, limit),
    nextDueAt: () => deps.deliveries.nextDueAt(),
    attempt: (requestId) => deliverAttempt(attemptDeps, requestId),
    now: () => deps.clock.now().getTime(),
    concurrency: deps.settings.concurrency,
    pollMs: POLL_MS,
    logger: deps.logger,
  });
  const subscription = await deps.log.consume({
    group: deps.group ?? `${deps.topics.prefix}.webhooks`,
    topics: deliveryTopics(deps.topics),
    concurrency: 8,
    handle: async ({ event }) => {
      if (deliversWebhook(event)) {
        await deps.deliveries.apply(event);
        const record = await deps.deliveries.get(event.requestId);
        // A redelivered or duplicate completion finds the delivery scheduled or ended already;
        // one that comes after a withdrawal finds the request withdrawn and is never delivered.
        const state = record ? foldDelivery(record) : undefined;
        if (state && state.view.state === 'PENDING' && !state.withdrawn) {
          await deps.deliveries.schedule(event.requestId, deps.clock.now().getTime(), { ifAbsent: true });
          loop.wake();
        }
      } else if (withdrawsWebhook(event)) {
        await deps.deliveries.apply(event); // the request was refused: whatever outcome follows is not delivered
      } else if (event.type === 'WebhookReplayRequested') {
        await deps.deliveries.apply(event);
        await deps.deliveries.schedule(event.requestId, deps.clock.now().getTime());
        loop.wake();
      } else if (isWebhookEvent(event)) {
        await deps.deliveries.apply(event); // our own records, for the other processes' views
      } else {
        return IGNORED; // no webhook to deliver (a sync render, an attempt): nothing changed here
      }
    },
  });
  return {
    async stop() {
      await subscription.stop();
      await loop.stop();
    },
  };
}
