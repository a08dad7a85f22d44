import { hostname } from 'node:os';
import type { RenderRequested } from '@pressroom/schemas';
import type { EventFactory, EventLog, Logger, StatusView, TopicNames } from '@pressroom/core';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

export interface Withdrawals {
  /**
   * Records durably that the ingress refuses this request (503), before the refusal is answered:
   * resolves once the log took the withdrawal, or after `withinMs` (the log takes nothing: the
   * withdrawal is then retried in the background until it lands or the ingress stops).
   * Resolves with whether it is on the log.
   */
  withdrawBeforeRefusal(requested: RenderRequested, withinMs: number): Promise<boolean>;
  /** Stops retrying (shutdown). */
  close(): void;
}

/**
 * When the ingress gives up on an append (its `acceptBy` passed), the request may still reach
 * the log, or be on it already: the broker wrote it and the acknowledgement came late or never
 * (a broker dying after the write, a cut connection). So before it answers 503 the ingress
 * appends a RenderWithdrawn for it to the completed topic, keyed by requestId like the render's
 * outcome: the status projector, the webhook dispatcher and the render worker (through the
 * status view) read both in one order, and the first wins. The 503 is answered once the
 * withdrawal is on the log, so an ingress that dies right after answering has nothing left to
 * do. A request the log writes after its `acceptBy` is withdrawn by the worker too (admitsRender).
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
    async withdrawBeforeRefusal(requested, withinMs) {
      let timer: NodeJS.Timeout | undefined;
      const written = append(requested).then(() => true);
      const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), withinMs)));
      try {
        return await Promise.race([written, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      closed = true;
    },
  };
}
