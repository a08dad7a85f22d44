import {
  batchBody,
  attemptStarted,
  batchItemEntries,
  dueAttempt,
  foldDelivery,
  goneFailure,
  recordAttempt,
  webhookBody,
  type AttemptResult,
  type WebhookEventDraft,
  type DeliveryState,
  type RetryPolicy,
  type WebhookTargetPolicy,
} from '@pressroom/domain';
import {
  toolStatusBody,
  type ArtifactStorage,
  type DeliveryStore,
  type EventFactory,
  type EventLog,
  type Logger,
  type TopicNames,
} from '@pressroom/core';
import type { Http, PressroomEvent, StatusViewEntry } from '@pressroom/schemas';
import type { Metrics } from '@pressroom/observability';
import { postWebhook } from './webhook-http.ts';
import { signWebhook } from './webhook-signature.ts';
import { ensureWebhookSecrets, signingSecrets, type WebhookSecretsDeps } from './webhook-secrets.ts';

export interface AttemptDeps extends WebhookSecretsDeps {
  log: EventLog;
  deliveries: DeliveryStore;
  storage: ArtifactStorage;
  topics: TopicNames;
  event: EventFactory;
  logger: Logger;
  metrics: Metrics;
  settings: DispatcherSettings;
  /** A draw in [0, 1) for the back-off jitter. */
  random: () => number;
}

export interface DispatcherSettings {
  /** Time limit of one attempt (connect, send, response headers). */
  timeoutMs: number;
  policy: WebhookTargetPolicy;
  retry: RetryPolicy;
  /** Attempts in flight at once in this process. */
  concurrency: number;
}

/**
 * Makes the next attempt of one scheduled delivery, records it, and schedules the one after
 * (or ends the round). The attempt is recorded twice: WebhookAttemptStarted before anything is
 * sent (the log knows of every attempt that may have reached the receiver) and WebhookAttempted
 * with its outcome after. A process that dies in between leaves the schedule entry leased; when
 * the lease runs out (or, embedded, when the schedule is rebuilt at start) the next attempt, with
 * the next number and the same webhook-id, is made, and the cut-short one stays on the log with
 * an unknown outcome.
 */
export async function deliverAttempt(deps: AttemptDeps, requestId: string): Promise<void> {
  const record = await deps.deliveries.get(requestId);
  const due = dueAttempt(record ? foldDelivery(record) : undefined);
  if (!due) {
    await deps.deliveries.unschedule(requestId); // done already, or nothing to deliver
    return;
  }
  const { view, result, attempt } = due;
  const { url } = due.common;
  const ids = { requestId, tenantId: view.tenantId };
  const log = deps.logger.child({ requestId, tenantId: view.tenantId, webhookId: view.webhookId });

  if (await deps.deliveries.isGone(view.tenantId, url)) {
    await record_(deps, ids, [goneFailure(due)]);
    await deps.deliveries.unschedule(requestId);
    deps.metrics.webhookDeliveriesTotal.inc({ outcome: 'failed' });
    observeDeliveryLatency(deps, result.completedAt, 'failed');
    log.info('webhook not sent: the URL is gone', { url });
    return;
  }

  const started = deps.clock.now();
  // On the log before the request leaves: if this fails, nothing was sent (the lease retries).
  await record_(deps, ids, [attemptStarted(due, started)]);
  log.info('webhook attempt started', { attempt, round: view.round });
  const t0 = performance.now();
  let outcome: AttemptResult;
  try {
    const request = await prepareRequest(deps, { view, result, started });
    outcome = await postWebhook({ url, ...request, timeoutMs: deps.settings.timeoutMs, policy: deps.settings.policy });
  } catch (err) {
    // Preparing can fail (a deleted S3 connection cannot sign the file link): an attempt like any
    // other, recorded and retried with back-off until the policy gives up.
    outcome = { kind: 'not-sent', message: (err as Error).message };
  }
  const durationMs = Math.round(performance.now() - t0);
  const { decision, events, nextAttemptAt, statusCode } = recordAttempt({
    due,
    startedAt: started,
    result: outcome,
    durationMs,
    now: deps.clock.now(),
    policy: deps.settings.retry,
    random: deps.random(),
  });
  await record_(deps, ids, events);
  if (nextAttemptAt) await deps.deliveries.schedule(requestId, nextAttemptAt.getTime());
  else await deps.deliveries.unschedule(requestId);
  deps.metrics.webhookAttemptsTotal.inc({ outcome: decision.outcome });
  deps.metrics.webhookAttemptSeconds.observe({ outcome: decision.outcome }, durationMs / 1000);
  if (decision.outcome !== 'retrying') {
    deps.metrics.webhookDeliveriesTotal.inc({ outcome: decision.outcome });
    observeDeliveryLatency(deps, result.completedAt, decision.outcome);
  }
  log.info('webhook attempted', {
    attempt,
    round: view.round,
    outcome: decision.outcome,
    statusCode,
    durationMs,
    ...(decision.outcome !== 'delivered' ? { error: decision.error } : {}),
    ...(nextAttemptAt ? { nextAttemptAt: nextAttemptAt.toISOString() } : {}),
  });
}

/** The signed body and Standard Webhooks headers of one attempt (a new timestamp each time). */
async function prepareRequest(
  deps: AttemptDeps,
  args: { view: DeliveryState['view']; result: NonNullable<DeliveryState['result']>; started: Date },
): Promise<{ headers: Record<string, string>; body: string }> {
  const { view, result, started } = args;
  // A batch's webhook carries the batch body; a PDF tool's the tool status body
  // (`{requestId, status, result, metadata}`); a render's the contract's body.
  const body = JSON.stringify(
    result.batch
      ? await batchWebhookBody(deps, result)
      : result.tool
        ? await toolStatusBody(result, deps.storage, started, 'webhook')
        : webhookBody(result, await signedUrlOf(deps, result, result.linkTtlSeconds)),
  );
  const secrets = await ensureWebhookSecrets(deps, view.tenantId);
  const timestamp = Math.floor(started.getTime() / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Pressroom-Webhooks/1',
      'webhook-id': view.webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook({ secrets: signingSecrets(secrets, started), webhookId: view.webhookId, timestamp, body }),
    },
  };
}

async function signedUrlOf(deps: AttemptDeps, entry: StatusViewEntry | undefined, ttlSeconds?: number): Promise<string> {
  return entry?.state === 'SUCCESS' && entry.artifact
    ? deps.storage.signedUrl(entry.tenantId, entry.artifact, ttlSeconds, { requestId: entry.requestId, where: 'webhook', file: 'result' })
    : '';
}

/** A batch's one webhook: the batch body, every link minted now (batchBody in @pressroom/domain). */
async function batchWebhookBody(deps: AttemptDeps, result: StatusViewEntry): Promise<Http.BatchResponse> {
  const ttl = result.batch?.signedUrlExpiresIn;
  const items = batchItemEntries(result, []);
  const urls = await Promise.all(items.map((e) => signedUrlOf(deps, e, ttl)));
  const merged = result.artifact
    ? await deps.storage.signedUrl(result.tenantId, result.artifact, ttl, { requestId: result.requestId, where: 'webhook', file: 'merged' })
    : undefined;
  return batchBody(result, items, { items: urls, ...(merged ? { merged } : {}) });
}

/** On the log first (the record), then into the view, so the next attempt sees this one. */
async function record_(deps: AttemptDeps, ids: { requestId: string; tenantId: string }, drafts: WebhookEventDraft[]): Promise<void> {
  const events: PressroomEvent[] = drafts.map((d) => deps.event(d.type, ids, d.data));
  await deps.log.append(deps.topics.webhooks, events);
  for (const e of events) await deps.deliveries.apply(e);
}

/** Render outcome to the end of its webhook delivery (every retry included). */
function observeDeliveryLatency(
  deps: Pick<AttemptDeps, 'metrics' | 'clock'>,
  completedAt: string | undefined,
  outcome: 'delivered' | 'failed',
): void {
  if (!completedAt) return;
  const seconds = (deps.clock.now().getTime() - Date.parse(completedAt)) / 1000;
  if (Number.isFinite(seconds)) deps.metrics.webhookDeliverySeconds.observe({ outcome }, Math.max(0, seconds));
}
