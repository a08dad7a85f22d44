import { setTimeout as sleep } from 'node:timers/promises';
import { evolveStatus } from '@pressroom/domain';
import { consumeRetryDelayMs, type Logger, type StatusView } from '@pressroom/core';
import type { PressroomEvent, StatusViewEntry } from '@pressroom/schemas';

/** Requests kept at most while the view is away; the oldest go first (the status projector writes them from the log anyway). */
export const MAX_PENDING_REQUESTS = 10_000;

/**
 * What the ingress writes to the status view once the log took a request: its RenderRequested
 * (and an outcome the log already held), so a status call right after the answer finds it.
 *
 * Once the log has taken a request it is accepted, whatever the view says: a view that cannot
 * be written then (Redis restarting, a connection lost) must not turn the answer into a 503,
 * which means "not taken" (the request renders and its webhook comes). So `record` never
 * throws: what the view refused is kept here and written again in the background, with the
 * consumers' back-off, until the view takes it; meanwhile `pending` answers the entry it folds
 * to, so this ingress never answers 404 for a request it accepted. The status projector writes
 * the same events from the log (the view's applies are idempotent and forward-only), so a
 * request dropped here (this process stopping, more than MAX_PENDING_REQUESTS waiting) is
 * still recorded once the view is back; what is kept here only covers the gap before that.
 */
export interface AcceptedEntries {
  record(events: readonly PressroomEvent[]): Promise<void>;
  /** The entry of an accepted request whose events the view has not taken yet, or undefined. */
  pending(requestId: string): StatusViewEntry | undefined;
  /** How many requests wait for the view. */
  readonly size: number;
  /** Stops writing in the background (what is pending is left to the status projector). */
  close(): void;
}

export function createAcceptedEntries(deps: {
  view: Pick<StatusView, 'apply'>;
  logger: Logger;
  /** Back-off before the n-th attempt in a row (default: the consumers' own). */
  retryDelayMs?: (attempt: number) => number;
  maxPending?: number;
}): AcceptedEntries {
  const retryDelayMs = deps.retryDelayMs ?? consumeRetryDelayMs;
  const maxPending = deps.maxPending ?? MAX_PENDING_REQUESTS;
  /** Per request, in log order, the events the view has not taken (Map order: oldest first). */
  const waiting = new Map<string, PressroomEvent[]>();
  let retrying: Promise<void> | undefined;
  const closing = new AbortController();

  function keep(event: PressroomEvent): void {
    const events = waiting.get(event.requestId);
    if (events) {
      events.push(event);
      return;
    }
    waiting.set(event.requestId, [event]);
    if (waiting.size <= maxPending) return;
    const [oldest] = waiting.keys();
    waiting.delete(oldest!);
    deps.logger.warn('too many accepted requests wait for the status view; the oldest is left to the status projector', {
      requestId: oldest,
      maxPending,
    });
  }

  /** Writes one request's waiting events in order; true when the view took them all. */
  async function flush(requestId: string, events: PressroomEvent[]): Promise<boolean> {
    while (events.length > 0) {
      await deps.view.apply(events[0]!);
      events.shift();
    }
    if (waiting.get(requestId) === events) waiting.delete(requestId);
    return true;
  }

  /** Until every waiting request is written (or close): a round over all of them after each back-off. */
  async function retryLoop(): Promise<void> {
    let attempt = 1;
    while (waiting.size > 0 && !closing.signal.aborted) {
      // Not holding the process (ref: false): shutting down never waits for this, the status
      // projector has the same events.
      await sleep(retryDelayMs(attempt), undefined, { signal: closing.signal, ref: false }).catch(() => {});
      if (closing.signal.aborted) return;
      const written = await writeAll();
      attempt = written ? 1 : attempt + 1;
      if (written) deps.logger.info('the status view took the accepted requests it had refused');
    }
  }

  /** One round, oldest first, stopping at the first refusal (the view is still away). */
  async function writeAll(): Promise<boolean> {
    for (const [requestId, events] of [...waiting]) {
      if (!(await flush(requestId, events).catch(() => false))) return false;
    }
    return true;
  }

  function startRetrying(): void {
    retrying ??= retryLoop().finally(() => {
      retrying = undefined;
      if (waiting.size > 0 && !closing.signal.aborted) startRetrying();
    });
  }

  return {
    async record(events) {
      for (const [i, event] of events.entries()) {
        if (waiting.has(event.requestId)) {
          keep(event);
          continue;
        }
        try {
          await deps.view.apply(event);
        } catch (error) {
          deps.logger.warn('the status view did not take an accepted request; it is written again when the view is back', {
            requestId: event.requestId,
            error: String(error),
          });
          for (const rest of events.slice(i)) keep(rest);
          startRetrying();
          return;
        }
      }
    },

    pending(requestId) {
      const events = waiting.get(requestId);
      return events?.reduce<StatusViewEntry | undefined>((entry, event) => evolveStatus(entry, event), undefined);
    },

    get size() {
      return waiting.size;
    },

    close() {
      closing.abort();
    },
  };
}
