import { FairScheduler, type FairSchedulerOptions, type SchedulerLane } from '@pressroom/domain';

interface Ticket {
  lane: SchedulerLane;
  tenantId: string;
  resolve(release: () => void): void;
  reject(err: Error): void;
}

/** SlotsClosedError happens when a render asks for (or waits for) a slot after the worker began to stop. */
export class SlotsClosedError extends Error {
  constructor() {
    super('the render worker is stopping');
    this.name = 'SlotsClosedError';
  }
}

export interface RenderSlotsOptions extends FairSchedulerOptions {
  /** Milliseconds, monotonic. Default performance.now. */
  now?: () => number;
}

/**
 * The worker's render slots, handed out by the fair scheduler: a render waits here, already
 * read from the log but not started, until its lane has a free slot and its tenant is under
 * its cap and has its turn. The consumer reads ahead (its concurrency is the read-ahead), so
 * other tenants' requests behind a capped tenant's are served first; the log's committed
 * position stays at the lowest unfinished record, so a crash re-renders, never loses.
 */
export class RenderSlots {
  readonly #scheduler: FairScheduler<Ticket>;
  readonly #waiting = new Set<Ticket>();
  readonly #now: () => number;
  /** The dispatch that ends the async lane's yield, when one is due. */
  #yieldTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(slotsPerLane: number, options: RenderSlotsOptions = {}) {
    const { now, ...yieldOptions } = options;
    this.#scheduler = new FairScheduler({ sync: slotsPerLane, async: slotsPerLane }, yieldOptions);
    this.#now = now ?? (() => performance.now());
  }

  /** Resolves with the function that gives the slot back, once this render may start. */
  acquire(lane: SchedulerLane, tenantId: string, cap: number): Promise<() => void> {
    if (this.#closed) return Promise.reject(new SlotsClosedError());
    return new Promise((resolve, reject) => {
      const ticket: Ticket = { lane, tenantId, resolve, reject };
      this.#waiting.add(ticket);
      this.#scheduler.submit(lane, tenantId, cap, ticket);
      this.#dispatch();
    });
  }

  /**
   * A slot now, or undefined: only when nothing waits in the lane (a render taken this way never
   * passes one already queued) and the scheduler starts it at once (a free slot, the tenant under
   * its cap, the async lane not yielding).
   */
  tryAcquire(lane: SchedulerLane, tenantId: string, cap: number): (() => void) | undefined {
    if (this.#closed || this.#scheduler.waiting(lane) > 0) return undefined;
    let granted: (() => void) | undefined;
    const ticket: Ticket = { lane, tenantId, resolve: (release) => (granted = release), reject: () => {} };
    this.#waiting.add(ticket);
    this.#scheduler.submit(lane, tenantId, cap, ticket);
    this.#dispatch();
    if (!granted) {
      this.#scheduler.withdraw(lane, tenantId, ticket);
      this.#waiting.delete(ticket);
    }
    return granted;
  }

  /** Rejects every render still waiting (its record stays uncommitted); running ones finish. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#yieldTimer);
    for (const ticket of this.#waiting) {
      this.#scheduler.withdraw(ticket.lane, ticket.tenantId, ticket);
      ticket.reject(new SlotsClosedError());
    }
    this.#waiting.clear();
  }

  stats(lane: SchedulerLane): { running: number; waiting: number } {
    return { running: this.#scheduler.running(lane), waiting: this.#scheduler.waiting(lane) };
  }

  #dispatch(): void {
    if (this.#closed) return;
    const now = this.#now();
    for (const { lane, tenantId, job: ticket } of this.#scheduler.dispatch(now)) {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.#scheduler.finish(lane, tenantId, this.#now());
        this.#dispatch();
      };
      this.#waiting.delete(ticket);
      ticket.resolve(release);
    }
    this.#wakeAfterYield(now);
  }

  /**
   * Dispatches again when the async lane's yield ends by itself (the window after the last sync
   * render, or the yield's bound), where no sync render's start or end would bring a dispatch.
   */
  #wakeAfterYield(now: number): void {
    clearTimeout(this.#yieldTimer);
    this.#yieldTimer = undefined;
    const until = this.#scheduler.waiting('async') > 0 ? this.#scheduler.asyncHeldUntil(now) : undefined;
    if (until === undefined || until === Number.POSITIVE_INFINITY) return;
    this.#yieldTimer = setTimeout(
      () => {
        this.#yieldTimer = undefined;
        this.#dispatch();
      },
      Math.max(1, Math.ceil(until - now)),
    );
  }
}
