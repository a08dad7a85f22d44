import { evolveStatus, webhookBody } from '@pressroom/domain';
import {
  checkWebhookTarget,
  type ArtifactStorage,
  type EventFactory,
  type EventLog,
  type Logger,
  type Subscription,
  type TopicNames,
} from '@pressroom/core';
import type { RenderCompleted } from '@pressroom/schemas';
import type { Metrics } from '@pressroom/observability';

export interface WebhookDispatcherDeps {
  log: EventLog;
  storage: ArtifactStorage;
  topics: TopicNames;
  event: EventFactory;
  logger: Logger;
  metrics: Metrics;
  timeoutMs: number;
  allowPrivate: boolean;
  group?: string;
}

/**
 * POSTs the result of every async render to its webhook and records the outcome as
 * WebhookDelivered or WebhookFailed on the log. Retries with back-off, signing and replay
 * build on this (see the webhooks issue); today each result gets one attempt.
 */
export async function startWebhookDispatcher(deps: WebhookDispatcherDeps): Promise<Subscription> {
  return deps.log.consume({
    group: deps.group ?? `${deps.topics.prefix}.webhooks`,
    topics: [deps.topics.completed],
    concurrency: 8,
    handle: async (record) => {
      const e = record.event;
      if ((e.type === 'RenderSucceeded' || e.type === 'RenderFailed') && e.data.mode === 'async' && e.data.webhook) {
        await deliver(deps, e, e.data.webhook);
      }
    },
  });
}

async function deliver(deps: WebhookDispatcherDeps, completed: RenderCompleted, url: string): Promise<void> {
  const entry = evolveStatus(undefined, completed);
  if (!entry) return;
  const signedUrl = entry.state === 'SUCCESS' && entry.artifact ? await deps.storage.signedUrl(completed.tenantId, entry.artifact) : '';
  const body = webhookBody(entry, signedUrl);
  const ids = { requestId: completed.requestId, tenantId: completed.tenantId };
  const started = performance.now();
  const outcome = await attempt(deps, url, JSON.stringify(body), completed.eventId);
  const durationMs = Math.round(performance.now() - started);
  const recorded = outcome.ok
    ? deps.event('WebhookDelivered', ids, { url, statusCode: outcome.statusCode, durationMs, renderStatus: body.renderStatus })
    : deps.event('WebhookFailed', ids, {
        url,
        ...(outcome.statusCode !== undefined ? { statusCode: outcome.statusCode } : {}),
        durationMs,
        renderStatus: body.renderStatus,
        reason: outcome.reason,
      });
  await deps.log.append(deps.topics.webhooks, [recorded]);
  deps.metrics.webhookDeliveriesTotal.inc({ outcome: outcome.ok ? 'delivered' : 'failed' });
  deps.logger.info('webhook attempted', { requestId: completed.requestId, ok: outcome.ok, statusCode: outcome.statusCode, durationMs });
}

type AttemptOutcome = { ok: true; statusCode: number } | { ok: false; statusCode?: number; reason: string };

async function attempt(deps: WebhookDispatcherDeps, url: string, body: string, webhookId: string): Promise<AttemptOutcome> {
  // DNS may have changed since the request was accepted: decide again right before connecting.
  const problem = await checkWebhookTarget(url, { allowPrivate: deps.allowPrivate });
  if (problem) return { ok: false, reason: `refused: ${problem.message}` };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Pressroom-Webhooks/1', 'webhook-id': webhookId },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    await res.body?.cancel();
    return res.status >= 200 && res.status < 300
      ? { ok: true, statusCode: res.status }
      : { ok: false, statusCode: res.status, reason: `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, reason: (err as Error).name === 'TimeoutError' ? 'timeout' : `connection error: ${(err as Error).message}` };
  }
}
