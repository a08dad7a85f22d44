import type {
  BatchCompleted,
  DeliveryView,
  LogEvent,
  RenderCompleted,
  RenderWithdrawn,
  StatusViewEntry,
  WebhookEvent,
} from '@pressroom/schemas';
import { evolveStatus } from './status.ts';

/** Everything the log says about delivering one result: its completion and its webhook events. */
export interface DeliveryRecord {
  requestId: string;
  tenantId: string;
  /**
   * The first terminal event of the request (first terminal wins, as in the status view): its
   * outcome, or its withdrawal (the ingress refused it), after which nothing is delivered.
   */
  completion?: RenderCompleted | BatchCompleted | RenderWithdrawn;
  events: WebhookEvent[];
}

export interface DeliveryState {
  view: DeliveryView;
  /** The status entry of the delivered result; absent until the completion is known. */
  result?: StatusViewEntry;
  /** Number of the next attempt in the current round. */
  nextAttempt: number;
  /** The request was withdrawn before any outcome: nothing is ever delivered for it. */
  withdrawn: boolean;
}

/**
 * The `webhook-id` of a request's result. Derived from the requestId, so every retry, every
 * replay and a redelivered duplicate completion carry the same id, and only one result (the
 * first terminal one) is ever delivered for a request.
 */
export function webhookIdFor(requestId: string): string {
  return `msg_${requestId.replace(/-/g, '')}`;
}

/**
 * Folds a delivery record into its view. Pure and order-independent: the round is the number
 * of replays, and the state of a round is decided only by events of that round, so events
 * read from two topics in any order, or twice, give the same view.
 */
export function foldDelivery(record: DeliveryRecord): DeliveryState {
  const events = uniqueByEventId(record.events);
  const replays = events.filter((e) => e.type === 'WebhookReplayRequested');
  const round = replays.length;
  const withdrawn = record.completion?.type === 'RenderWithdrawn';
  const completion = record.completion?.type === 'RenderWithdrawn' ? undefined : record.completion;
  const result = completion ? evolveStatus(undefined, completion) : undefined;
  const view: DeliveryView = {
    requestId: record.requestId,
    tenantId: record.tenantId,
    webhookId: webhookIdFor(record.requestId),
    ...(completion?.data.webhook ? { url: completion.data.webhook } : {}),
    ...(result && result.state !== 'ONGOING' ? { renderStatus: result.state } : {}),
    state: 'PENDING',
    ...(completion ? { completedAt: completion.occurredAt } : {}),
    round,
    attempts: [],
    outcomes: [],
    replays: replays.map((e) => ({ at: e.occurredAt, requestedBy: e.data.requestedBy, replayId: e.data.replayId })),
  };
  let nextAttempt = 1;
  let lastAttemptThisRound: { attempt: number; nextAttemptAt?: string } | undefined;
  // Attempts that started; those with no recorded end are shown with an unknown outcome.
  const ended = new Set(events.flatMap((e) => (e.type === 'WebhookAttempted' ? [`${e.data.round}/${e.data.attempt}`] : [])));
  for (const e of events) {
    if (e.type === 'WebhookAttemptStarted') {
      // A started attempt is used up even if it never ended: the next one gets the next number.
      if (e.data.round === round) nextAttempt = Math.max(nextAttempt, e.data.attempt + 1);
      if (!ended.has(`${e.data.round}/${e.data.attempt}`)) {
        view.attempts.push({ round: e.data.round, attempt: e.data.attempt, startedAt: e.data.startedAt, outcome: 'unknown' });
      }
    } else if (e.type === 'WebhookAttempted') {
      view.attempts.push({
        round: e.data.round,
        attempt: e.data.attempt,
        startedAt: e.data.startedAt,
        ...(e.data.statusCode !== undefined ? { statusCode: e.data.statusCode } : {}),
        durationMs: e.data.durationMs,
        ...(e.data.error !== undefined ? { error: e.data.error } : {}),
        outcome: e.data.outcome,
        ...(e.data.nextAttemptAt !== undefined ? { nextAttemptAt: e.data.nextAttemptAt } : {}),
      });
      if (e.data.round === round) {
        nextAttempt = Math.max(nextAttempt, e.data.attempt + 1);
        if (!lastAttemptThisRound || e.data.attempt >= lastAttemptThisRound.attempt) {
          lastAttemptThisRound = { attempt: e.data.attempt, ...(e.data.nextAttemptAt ? { nextAttemptAt: e.data.nextAttemptAt } : {}) };
        }
      }
    } else if (e.type === 'WebhookDelivered' || e.type === 'WebhookFailed') {
      const r = e.data.round ?? 0;
      view.outcomes.push({
        round: r,
        outcome: e.type === 'WebhookDelivered' ? 'DELIVERED' : 'FAILED',
        at: e.occurredAt,
        ...(e.data.statusCode !== undefined ? { statusCode: e.data.statusCode } : {}),
        ...(e.type === 'WebhookFailed' ? { reason: e.data.reason } : {}),
      });
      // The first final outcome of a round wins, like the first terminal event of a render.
      if (r === round && view.state === 'PENDING') view.state = e.type === 'WebhookDelivered' ? 'DELIVERED' : 'FAILED';
    }
  }
  view.attempts.sort((a, b) => a.round - b.round || a.attempt - b.attempt || a.startedAt.localeCompare(b.startedAt));
  view.outcomes.sort((a, b) => a.round - b.round || a.at.localeCompare(b.at));
  if (view.state === 'PENDING' && lastAttemptThisRound?.nextAttemptAt) view.nextAttemptAt = lastAttemptThisRound.nextAttemptAt;
  return { view, ...(result ? { result } : {}), nextAttempt, withdrawn };
}

/** Events are sorted by time (ties by id), and a redelivered event counts once. */
function uniqueByEventId(events: WebhookEvent[]): WebhookEvent[] {
  const seen = new Map<string, WebhookEvent>();
  for (const e of events) if (!seen.has(e.eventId)) seen.set(e.eventId, e);
  return [...seen.values()].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt) || a.eventId.localeCompare(b.eventId));
}

/** Whether a 410 among these events means the URL must not be called again (per tenant). */
export function goneUrlOf(event: WebhookEvent): string | undefined {
  return event.type === 'WebhookAttempted' && event.data.statusCode === 410 ? event.data.url : undefined;
}

/**
 * Whether an event is a completion whose result goes to a webhook: async renders, and batches
 * that named a webhook (one delivery per batch, whatever its mode).
 */
export function deliversWebhook(event: LogEvent): event is RenderCompleted | BatchCompleted {
  if (event.type === 'BatchCompleted') return Boolean(event.data.webhook);
  return (event.type === 'RenderSucceeded' || event.type === 'RenderFailed') && event.data.mode === 'async' && Boolean(event.data.webhook);
}

/**
 * Whether an event withdraws a request that named a webhook: it takes the delivery's terminal
 * slot like a completion, so a later outcome is never delivered.
 */
export function withdrawsWebhook(event: LogEvent): event is RenderWithdrawn {
  return event.type === 'RenderWithdrawn' && event.data.mode === 'async' && Boolean(event.data.webhook);
}

export function isWebhookEvent(event: LogEvent): event is WebhookEvent {
  return (
    event.type === 'WebhookAttempted' ||
    event.type === 'WebhookDelivered' ||
    event.type === 'WebhookFailed' ||
    event.type === 'WebhookReplayRequested' ||
    event.type === 'WebhookAttemptStarted'
  );
}

/**
 * When a delivery's next attempt is due, as the log tells it, or undefined when nothing more
 * is to be sent (delivered, failed, withdrawn, no result yet). Used to rebuild the schedule
 * from the log after the schedule was lost (a Redis flushed or restarted without persistence,
 * an embedded process restarted), so the schedule continues where it was:
 * - an attempt of the current round that started and has no recorded end may still be in
 *   flight in a dispatcher: it is due when that dispatcher's lease would have run out
 *   (`startedAt + leaseMs`; 0 when no attempt can be in flight, e.g. the process restarted),
 *   and is then made again with the next number and the same webhook-id;
 * - after a retrying attempt, when it said (`nextAttemptAt`);
 * - a round with no attempt yet, from its start (the completion, or the replay request).
 * A past time means due now.
 */
/**
 * Whether a delivery record may expire from a view store (the log keeps its events): unless a
 * delivery is pending. A record whose request has an outcome and whose round is delivered or
 * failed, or that was withdrawn, only keeps history; one without a completion has nothing to
 * send (a replay of a request whose record already expired; a rebuild writes its completion
 * next, which decides again). A pending record never expires: its schedule entry needs it,
 * however long the dispatchers are away. A replay starts a new round, pending again.
 */
export function deliverySettled(record: DeliveryRecord): boolean {
  if (!record.completion) return true;
  const state = foldDelivery(record);
  return state.withdrawn || state.view.state !== 'PENDING';
}

export function deliveryDueAt(state: DeliveryState, leaseMs: number): number | undefined {
  const { view } = state;
  if (state.withdrawn || !state.result || !view.url || !view.renderStatus || view.state !== 'PENDING') return undefined;
  const last = view.attempts.filter((a) => a.round === view.round).at(-1);
  if (last && last.outcome === 'unknown' && last.attempt === state.nextAttempt - 1) return Date.parse(last.startedAt) + leaseMs;
  if (last && view.nextAttemptAt) return Date.parse(view.nextAttemptAt);
  if (last && (last.outcome === 'delivered' || last.outcome === 'failed')) return undefined; // its end is on its way
  const roundStart = view.round > 0 ? view.replays.at(-1)?.at : view.completedAt;
  return roundStart ? Date.parse(roundStart) : 0;
}
