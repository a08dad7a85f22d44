import type { Logger, RenderHeadStart, RenderOutput, StoredPayloads } from '@pressroom/core';
import type { Metrics } from '@pressroom/observability';
import type { RenderRequested } from '@pressroom/schemas';
import type { RenderSlots } from './render-slots.ts';

/** What resolving a request's payload answered. */
type ResolvedPayload = Awaited<ReturnType<StoredPayloads['resolve']>>;

/** A render begun from an offer (see RenderHeadStart): its payload and its first attempt. */
export interface HeadStart {
  resolved: Promise<ResolvedPayload>;
  /** The first attempt; rejects when the payload did not resolve (the handler then never uses it). */
  rendered: Promise<RenderOutput>;
  /** When it began (performance.now()): the render's execution time counts from there. */
  startedAt: number;
}

/** A head start handed to the request's delivery: the slot it holds goes back through `release`. */
export interface TakenHeadStart extends HeadStart {
  /** Gives the slot back: call once `rendered` has settled (Chromium works on it until then). */
  release(): void;
}

export interface HeadStartsDeps {
  slots: RenderSlots;
  /** The tenant's cap on renders in flight, for its plan (as the delivery's slot is asked with). */
  capOf: (plan: string | undefined) => number;
  /** Begins the render of a request, or answers undefined when it is not one to begin early. */
  begin: (requested: RenderRequested) => HeadStart | undefined;
  metrics: Metrics;
  logger: Logger;
  /** How long a head start waits for its delivery past the request's acceptBy (after it, the log refuses the request). */
  graceMs: number;
}

interface Begun {
  requested: RenderRequested;
  start: HeadStart;
  release: () => void;
  timer: NodeJS.Timeout;
}

/** How long a head start of a request without acceptBy (none the ingress writes) waits for its delivery. */
const DEFAULT_WAIT_MS = 60_000;

/**
 * The render worker's side of RenderHeadStart: a sync request offered by the ingress of this
 * process is begun at once when the lane has a free slot and nobody waiting for one; its delivery
 * from the log then takes the render begun (`take`) instead of asking for a slot and rendering.
 * A head start that no delivery takes (the request was refused, or the delivery is not the same
 * request) is dropped: its render runs to its end, unused, and its slot is given back.
 */
export class HeadStarts implements RenderHeadStart {
  readonly #begun = new Map<string, Begun>();
  readonly #deps: HeadStartsDeps;
  #closed = false;

  constructor(deps: HeadStartsDeps) {
    this.#deps = deps;
  }

  offer(requests: readonly RenderRequested[]): void {
    const { slots, capOf, begin, metrics } = this.#deps;
    for (const requested of requests) {
      if (this.#closed || requested.data.mode !== 'sync' || this.#begun.has(requested.requestId)) continue;
      const release = slots.tryAcquire('sync', requested.tenantId, capOf(requested.data.plan));
      if (!release) {
        metrics.renderHeadStartsTotal.inc({ outcome: 'declined' });
        continue;
      }
      let start: HeadStart | undefined;
      try {
        start = begin(requested);
      } catch (err) {
        this.#deps.logger.warn('a head start could not begin; the request renders when delivered', { err });
      }
      if (!start) {
        release();
        metrics.renderHeadStartsTotal.inc({ outcome: 'declined' });
        continue;
      }
      start.rendered.catch(() => {}); // taken and awaited by the delivery, or dropped
      const timer = setTimeout(() => this.#drop(requested.requestId), this.#waitMs(requested));
      timer.unref();
      this.#begun.set(requested.requestId, { requested, start, release, timer });
    }
  }

  forget(requestIds: readonly string[]): void {
    for (const id of requestIds) this.#drop(id);
  }

  /**
   * The render begun for this delivered request, when one was begun for exactly it (same id,
   * tenant and data): the delivery then holds its slot. Undefined otherwise (none, or a request
   * that differs: that head start is dropped).
   */
  take(requested: RenderRequested): TakenHeadStart | undefined {
    const begun = this.#begun.get(requested.requestId);
    if (!begun) return undefined;
    if (!sameRequest(begun.requested, requested)) {
      this.#deps.logger.warn('a delivered request differs from the one offered; the head start is dropped', {
        requestId: requested.requestId,
      });
      this.#drop(requested.requestId);
      return undefined;
    }
    this.#begun.delete(requested.requestId);
    clearTimeout(begun.timer);
    this.#deps.metrics.renderHeadStartsTotal.inc({ outcome: 'taken' });
    return { ...begun.start, release: begun.release };
  }

  /** No more offers; every head start not taken is dropped. */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#begun.keys()]) this.#drop(id);
  }

  #drop(requestId: string): void {
    const begun = this.#begun.get(requestId);
    if (!begun) return;
    this.#begun.delete(requestId);
    clearTimeout(begun.timer);
    this.#deps.metrics.renderHeadStartsTotal.inc({ outcome: 'dropped' });
    // The slot stays taken while Chromium still works on the render.
    void begun.start.rendered.then(begun.release, begun.release);
  }

  /** Until the request's acceptBy and the clocks' tolerance: a delivery after it withdraws the request unrendered. */
  #waitMs(requested: RenderRequested): number {
    const acceptBy = Date.parse(requested.data.acceptBy ?? '');
    if (Number.isNaN(acceptBy)) return DEFAULT_WAIT_MS;
    return Math.max(0, acceptBy + this.#deps.graceMs - Date.now());
  }
}

/** The same request: id, tenant and data (the log's copy went through JSON, which keeps key order). */
function sameRequest(offered: RenderRequested, delivered: RenderRequested): boolean {
  return (
    offered.requestId === delivered.requestId &&
    offered.tenantId === delivered.tenantId &&
    JSON.stringify(offered.data) === JSON.stringify(delivered.data)
  );
}
