import { hostname } from 'node:os';
import type { LogEvent, RenderRequested, RenderWithdrawn } from '@pressroom/schemas';
import { decideRefusal, type RefusalVerdict } from '@pressroom/domain';
import type { EventFactory, EventLog, LogPosition, Logger, StatusView, TopicNames } from '@pressroom/core';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;
/** How often the lower bound of a refusal's read (the completed topic's ends) is refreshed. */
const ENDS_REFRESH_MS = 1_000;
/** A read of the completed topic that has not finished by then is given up and tried again. */
const READ_BOUND_MS = 30_000;

/** Where reading the completed topic for a request may start: partition → offset. */
export type CompletedFloor = ReadonlyMap<number, string>;

export interface Withdrawals {
  /**
   * The completed topic's ends as last seen: taken before any append started after this call,
   * so a valid place to start reading for the outcome of a request appended next (its outcome
   * can only be written after the request). Empty (read from the start) until first known.
   */
  floor(): CompletedFloor;
  /**
   * Settles a request the ingress gave up on (see below). Resolves within about `withinMs` with
   * what the log says; when that is `unknown`, the withdrawal goes on in the background and
   * `whenDecided` gets the verdict once the log tells (not called if the ingress stops first).
   */
  refuse(
    requested: RenderRequested,
    opts: { withinMs: number; floor: CompletedFloor; whenDecided?: (verdict: RefusalVerdict) => void },
  ): Promise<RefusalVerdict>;
  /** Stops retrying and refreshing (shutdown). */
  close(): void;
}

/**
 * When the ingress gives up on an append (its `acceptBy` passed), the request may still reach
 * the log, or be on it already: the broker wrote it and the acknowledgement came late or never.
 * So the ingress appends a RenderWithdrawn for it to the completed topic, keyed by requestId
 * like the render's outcome: the status projector, the webhook dispatcher and the render worker
 * read both in one order, and the first wins. The append answers with the withdrawal's position;
 * the ingress then reads the request's partition of the completed topic from a floor taken
 * before the request was sent up to that position, and the log says which came first
 * (`decideRefusal`):
 * - the withdrawal: nothing will render or deliver the request: 503 is true;
 * - the render's outcome (a request written in time whose acknowledgement was lost, rendered
 *   fast): the request was taken and the caller gets its answer;
 * - the withdrawal not on the log (or not read) in time: nobody can tell yet: 504
 *   OUTCOME_UNKNOWN; the withdrawal is retried with back-off until it lands or the ingress stops.
 * A request the log writes after its `acceptBy` is withdrawn by the worker too (admitsRender).
 *
 * The status view learns the withdrawal from the ingress only once the log decided that it came
 * first (applying it earlier could put it before an outcome that precedes it on the log: the
 * view must follow the log's order, as the projector does).
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
  let ends: CompletedFloor = new Map();

  const refresh = async () => {
    try {
      const fresh = await deps.log.endOffsets(deps.topics.completed);
      ends = new Map(fresh.map((e) => [e.partition, e.end]));
    } catch {
      // Keep the older floor: still a valid lower bound.
    }
  };
  void refresh();
  const refresher = setInterval(() => void refresh(), ENDS_REFRESH_MS);
  refresher.unref();

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

  /** Appends the withdrawal until the log takes it (or the ingress stops); resolves with its position. */
  async function append(requested: RenderRequested, withdrawn: RenderWithdrawn): Promise<LogPosition | undefined> {
    for (let attempt = 1; !closed; attempt++) {
      try {
        const [position] = await deps.log.append(deps.topics.completed, [withdrawn]);
        deps.logger.info('refused request withdrawn on the log', { requestId: requested.requestId, attempts: attempt });
        return position;
      } catch (err) {
        if (attempt === 1 || attempt % 10 === 0) {
          deps.logger.warn('withdrawal not on the log yet; retrying', { requestId: requested.requestId, attempt, err });
        }
        await sleep(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2));
      }
    }
    return undefined;
  }

  /** Reads the request's partition from the floor through the withdrawal, and decides. */
  async function decide(requested: RenderRequested, floor: CompletedFloor, at: LogPosition): Promise<RefusalVerdict> {
    const events: LogEvent[] = [];
    const from = floor.get(at.partition) ?? '0';
    const read = deps.log.readPartition(deps.topics.completed, { partition: at.partition, from, through: at.offset }, (r) => {
      if (r.key === requested.requestId) events.push(r.event);
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        read,
        new Promise(
          (_, reject) => (timer = setTimeout(() => reject(new Error(`read not done within ${READ_BOUND_MS} ms`)), READ_BOUND_MS)),
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
    return decideRefusal(requested.requestId, events);
  }

  /** The whole settlement: withdraw, read, decide (retrying the read until it succeeds or the ingress stops). */
  async function settle(requested: RenderRequested, floor: CompletedFloor, withdrawn: RenderWithdrawn): Promise<RefusalVerdict> {
    const at = await append(requested, withdrawn);
    if (!at) return { kind: 'unknown' };
    for (let attempt = 1; !closed; attempt++) {
      try {
        const verdict = await decide(requested, floor, at);
        // Decided from the log: applying the withdrawal now follows the log's order.
        if (verdict.kind === 'not-taken') await deps.view.apply(withdrawn).catch(() => {});
        return verdict;
      } catch (err) {
        if (attempt === 1)
          deps.logger.warn('could not read the completed topic to settle a refusal; retrying', { requestId: requested.requestId, err });
        await sleep(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1)));
      }
    }
    return { kind: 'unknown' };
  }

  return {
    floor: () => ends,
    async refuse(requested, opts) {
      if (closed) return { kind: 'unknown' };
      const { mode, webhook } = requested.data;
      const withdrawn = deps.event(
        'RenderWithdrawn',
        { requestId: requested.requestId, tenantId: requested.tenantId },
        { mode, ...(webhook ? { webhook } : {}), reason: 'NOT_ACCEPTED', by },
      );
      const settled = settle(requested, opts.floor, withdrawn);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), opts.withinMs)));
      try {
        const first = await Promise.race([settled, late]);
        if (first !== 'late') return first;
      } finally {
        clearTimeout(timer);
      }
      void settled.then((verdict) => {
        if (verdict.kind !== 'unknown') opts.whenDecided?.(verdict);
      });
      return { kind: 'unknown' };
    },
    close() {
      closed = true;
      clearInterval(refresher);
    },
  };
}
