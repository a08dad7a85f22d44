import type { LogEvent, RenderFailed, RenderSucceeded } from '@pressroom/schemas';

/**
 * What the log says about a request the ingress gave up on and withdrew:
 * - `not-taken`: its withdrawal is its first terminal event; nothing will render or deliver
 *   it (worker, projector and dispatcher honour the first terminal event): 503 is true.
 * - `taken`: its render's outcome came first; the request was taken and finished: the caller
 *   gets the answer of an accepted request.
 * - `unknown`: the records read hold neither (the read did not reach the withdrawal): say so (504).
 */
export type RefusalVerdict = { kind: 'not-taken' } | { kind: 'taken'; outcome: RenderSucceeded | RenderFailed } | { kind: 'unknown' };

/**
 * Decides a refusal from the records of the request's partition of the completed topic, in log
 * order, read up to and including the position of the ingress's withdrawal: the first terminal
 * event of `requestId` (outcome or withdrawal) wins, as in `evolveStatus`.
 */
export function decideRefusal(requestId: string, completed: Iterable<LogEvent>): RefusalVerdict {
  for (const e of completed) {
    if (!('requestId' in e) || e.requestId !== requestId) continue;
    if (e.type === 'RenderWithdrawn') return { kind: 'not-taken' };
    if (e.type === 'RenderSucceeded' || e.type === 'RenderFailed') return { kind: 'taken', outcome: e };
  }
  return { kind: 'unknown' };
}
