import { hostname } from 'node:os';
import type { RenderRequested } from '@pressroom/schemas';
import type { EventFactory, EventLog, Logger, StatusView, TopicNames } from '@pressroom/core';
import { appendNeverSent } from '@pressroom/domain';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

export interface Withdrawals {
  /**
   * Records, durably and in the background, that the ingress refused this request (503), once
   * `append` (the refused append, still running) shows it may reach the log: it resolved late,
   * or failed other than AppendNeverSent. A request never sent needs no withdrawal.
   */
  withdraw(requested: RenderRequested, append: Promise<void>): void;
  /** Stops retrying (shutdown). */
  close(): void;
}

/**
 * After a 503 the request may still reach the log: it was in a batch the producer keeps
 * retrying, or the broker wrote it and the acknowledgement was lost. The ingress therefore
 * appends a RenderWithdrawn for it to the completed topic, keyed by requestId like the render's
 * outcome: the status projector and the webhook dispatcher read both in one order, and the first
 * wins. A request written after its `acceptBy` is withdrawn by the worker too (admitsRender);
 * this covers the one written before it whose acknowledgement came late or never.
 *
 * The append goes through the same ordered producer as the request, so it follows the request's
 * batch; it is retried with back-off until the log takes it or the ingress stops.
 */
export function createWithdrawals(deps: {
  log: EventLog;
  view: StatusView;
  topics: TopicNames;
  event: EventFactory;
  logger: Logger;
}): Withdrawals {
  const by = `ingress:${hostname()}:${process.pid}`;
  let closed = false;

  async function append(requested: RenderRequested): Promise<void> {
    if (closed) return;
    const { mode, webhook } = requested.data;
    const withdrawn = deps.event(
      'RenderWithdrawn',
      { requestId: requested.requestId, tenantId: requested.tenantId },
      { mode, ...(webhook ? { webhook } : {}), reason: 'NOT_ACCEPTED', by },
    );
    for (let attempt = 1; !closed; attempt++) {
      try {
        await deps.log.append(deps.topics.completed, [withdrawn]);
        // Our own view knows at once (the projector applies it too): the status answers 404.
        await deps.view.apply(withdrawn).catch(() => {});
        deps.logger.info('refused request withdrawn on the log', { requestId: requested.requestId, attempts: attempt });
        return;
      } catch (err) {
        if (attempt === 1 || attempt % 10 === 0) {
          deps.logger.warn('withdrawal not on the log yet; retrying', { requestId: requested.requestId, attempt, err });
        }
        const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1));
        await new Promise((r) => setTimeout(r, delay * (0.5 + Math.random() / 2)).unref());
      }
    }
  }

  return {
    withdraw(requested, refused) {
      refused.then(
        () => append(requested), // acknowledged after the 503: it is on the log
        (err: unknown) => (appendNeverSent(err) ? undefined : append(requested)),
      );
    },
    close() {
      closed = true;
    },
  };
}
