import type {
  DeliveryView,
  StatusViewEntry,
  WebhookAttempted,
  WebhookAttemptStarted,
  WebhookDelivered,
  WebhookFailed,
} from '@pressroom/schemas';
import type { DeliveryState } from './delivery.ts';
import { decideAfterAttempt, type AttemptDecision, type AttemptResult, type RetryPolicy } from './webhook-retry.ts';

/**
 * One webhook attempt as decisions: whether there is one to make, what goes on the log before
 * and after it, and what the schedule does next. The dispatcher (libs/webhooks deliver-attempt.ts)
 * does the I/O around them: reads the delivery, asks whether the URL is gone, sends the request,
 * appends the events and moves the schedule. Pure: time, the attempt's result and the jitter
 * draw are parameters.
 */

/** An event to record, without its envelope (the event factory adds ids and time). */
export type WebhookEventDraft =
  | { type: 'WebhookAttemptStarted'; data: WebhookAttemptStarted['data'] }
  | { type: 'WebhookAttempted'; data: WebhookAttempted['data'] }
  | { type: 'WebhookDelivered'; data: WebhookDelivered['data'] }
  | { type: 'WebhookFailed'; data: WebhookFailed['data'] };

/** A delivery with an attempt due: its result is known and still to be delivered in this round. */
export interface DueAttempt {
  view: DeliveryView;
  result: StatusViewEntry;
  /** Number of this attempt in the round (1-based). */
  attempt: number;
  /** What every event of this attempt carries. */
  common: { url: string; renderStatus: 'SUCCESS' | 'FAILED'; webhookId: string; round: number };
}

/** The attempt a delivery is due for, or undefined when it is done already or has nothing to deliver (unschedule it). */
export function dueAttempt(state: DeliveryState | undefined): DueAttempt | undefined {
  const url = state?.view.url;
  const renderStatus = state?.view.renderStatus;
  if (!state || !state.result || !url || !renderStatus || state.view.state !== 'PENDING') return undefined;
  const { view, result, nextAttempt: attempt } = state;
  return { view, result, attempt, common: { url, renderStatus, webhookId: view.webhookId, round: view.round } };
}

/** Nothing is sent to a URL that answered 410 before: the round fails at once, with the attempts it made. */
export function goneFailure(due: DueAttempt): WebhookEventDraft {
  return {
    type: 'WebhookFailed',
    data: {
      ...due.common,
      durationMs: 0,
      reason: 'gone: this URL answered 410 earlier, so nothing more is sent to it',
      attempts: due.attempt - 1,
    },
  };
}

/** On the log before the request leaves, so an attempt cut short by a crash is still known. */
export function attemptStarted(due: DueAttempt, startedAt: Date): WebhookEventDraft {
  return { type: 'WebhookAttemptStarted', data: { ...due.common, attempt: due.attempt, startedAt: startedAt.toISOString() } };
}

export interface AttemptRecord {
  decision: AttemptDecision;
  /** WebhookAttempted, then WebhookDelivered or WebhookFailed when the round ends. */
  events: WebhookEventDraft[];
  /** When the next attempt is due (schedule it); absent: the round ended (unschedule it). */
  nextAttemptAt?: Date;
  statusCode?: number;
}

/** What an ended attempt records and schedules, given its result (decideAfterAttempt says what the result means). */
export function recordAttempt(args: {
  due: DueAttempt;
  startedAt: Date;
  result: AttemptResult;
  durationMs: number;
  now: Date;
  policy: RetryPolicy;
  random: number;
}): AttemptRecord {
  const { due, result, durationMs, now } = args;
  const { attempt, common } = due;
  const decision = decideAfterAttempt({ result, attempt, policy: args.policy, now, random: args.random });
  const statusCode = result.kind === 'response' ? result.statusCode : undefined;
  const withStatus = statusCode !== undefined ? { statusCode } : {};
  const nextAttemptAt = decision.outcome === 'retrying' ? new Date(now.getTime() + decision.delayMs) : undefined;
  const events: WebhookEventDraft[] = [
    {
      type: 'WebhookAttempted',
      data: {
        ...common,
        attempt,
        startedAt: args.startedAt.toISOString(),
        ...withStatus,
        durationMs,
        ...(decision.outcome !== 'delivered' ? { error: decision.error } : {}),
        outcome: decision.outcome,
        ...(nextAttemptAt ? { nextAttemptAt: nextAttemptAt.toISOString() } : {}),
      },
    },
  ];
  if (decision.outcome === 'delivered') {
    events.push({ type: 'WebhookDelivered', data: { ...common, statusCode: statusCode ?? 200, durationMs, attempts: attempt } });
  } else if (decision.outcome === 'failed') {
    events.push({ type: 'WebhookFailed', data: { ...common, ...withStatus, durationMs, reason: decision.error, attempts: attempt } });
  }
  return { decision, events, ...(nextAttemptAt ? { nextAttemptAt } : {}), ...withStatus };
}
