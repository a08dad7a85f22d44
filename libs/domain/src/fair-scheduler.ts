export type SchedulerLane = 'sync' | 'async';

/** A job handed out by `dispatch`: it now holds one slot of its lane and counts against its tenant's cap. */
export interface Dispatched<T> {
  lane: SchedulerLane;
  tenantId: string;
  job: T;
}

interface Waiting<T> {
  job: T;
  cap: number;
}

/** How the async lane gives way to the sync lane (see FairScheduler). */
export interface FairSchedulerOptions {
  /**
   * While a sync render waits or runs, and for this long after the last one ended, no async
   * render starts (those already running finish). 0 (default): the lanes only share out the slots.
   */
  asyncYieldMs?: number;
  /**
   * The bound on that yield (default 5000 ms): a sync render holds the async lane only during its
   * first `asyncYieldMaxMs`, and the async lane is never held longer than that in a row (then one
   * async render starts, and the count begins again).
   */
  asyncYieldMaxMs?: number;
}

interface LaneState<T> {
  slots: number;
  running: number;
  /** Waiting jobs per tenant, oldest first. */
  queues: Map<string, Waiting<T>[]>;
  /** Tenants with waiting jobs, in turn order: the next to be served comes first. */
  turns: string[];
}

/**
 * Decides which waiting render starts next. Pure state, no I/O and no timers, so every
 * decision is unit-tested; the render worker wraps it in promises.
 *
 * - Each lane has a fixed number of slots (renders at once).
 * - Each tenant has a cap on its renders in flight, counted across both lanes, so a tenant
 *   cannot take every slot by splitting its work between sync and async.
 * - Inside a lane, tenants take turns (round-robin): a served tenant goes to the back of the
 *   line, a tenant at its cap is skipped and keeps its place. A tenant's own jobs start in
 *   the order they arrived.
 * - The sync lane is served first when both lanes could use a tenant's last unit of cap.
 * - With `asyncYieldMs`, async work uses the time the sync lane leaves idle: no async render
 *   starts while a sync render could start (one waits and its tenant is under its cap) or runs,
 *   nor within `asyncYieldMs` after the last one ended. A sync caller waits on the other side of
 *   an HTTP call; an async one does not, and an async render started beside a sync one slows it
 *   (they share the CPU, and maybe a tenant's one unit of cap). The window bridges the gap
 *   between one sync request and the next (the caller reads its answer and sends again).
 *   The yield is bounded by `asyncYieldMaxMs`, so no tenant's sync traffic can stop the async
 *   lane of every tenant: a sync render running longer than that (a slow or hostile document)
 *   no longer holds it, nor does a sync render waiting for its own tenant's cap; and under sync
 *   traffic without gaps, one async render starts per `asyncYieldMaxMs`.
 *
 * With caps below the slot count, one tenant's renders, however slow or hostile, leave a
 * slot for the others; among the others, a newcomer waits at most for the tenants ahead of
 * it in the line, one job each.
 */
export class FairScheduler<T> {
  readonly #lanes: Record<SchedulerLane, LaneState<T>>;
  readonly #inFlight = new Map<string, number>();
  readonly #asyncYieldMs: number;
  readonly #asyncYieldMaxMs: number;
  /** When the last sync render started and ended (the caller's clock); -Infinity before the first. */
  #syncStartedAt = Number.NEGATIVE_INFINITY;
  #syncEndedAt = Number.NEGATIVE_INFINITY;
  /** Since when async work has waited only for the yield; undefined when it is not held. */
  #asyncHeldSince: number | undefined;

  constructor(slots: Record<SchedulerLane, number>, options: FairSchedulerOptions = {}) {
    for (const lane of ['sync', 'async'] as const) {
      if (!Number.isInteger(slots[lane]) || slots[lane] < 1) throw new RangeError(`${lane} slots must be a positive integer`);
    }
    const lane = (n: number): LaneState<T> => ({ slots: n, running: 0, queues: new Map(), turns: [] });
    this.#lanes = { sync: lane(slots.sync), async: lane(slots.async) };
    const yieldMs = options.asyncYieldMs ?? 0;
    const maxMs = options.asyncYieldMaxMs ?? 5000;
    if (!Number.isFinite(yieldMs) || yieldMs < 0) throw new RangeError('asyncYieldMs must be a non-negative number');
    if (!Number.isFinite(maxMs) || maxMs <= 0) throw new RangeError('asyncYieldMaxMs must be a positive number');
    this.#asyncYieldMs = yieldMs;
    this.#asyncYieldMaxMs = maxMs;
  }

  /** Queues a job; `cap` is the tenant's limit on renders in flight (at least 1). */
  submit(lane: SchedulerLane, tenantId: string, cap: number, job: T): void {
    const state = this.#lanes[lane];
    let queue = state.queues.get(tenantId);
    if (!queue) {
      queue = [];
      state.queues.set(tenantId, queue);
      state.turns.push(tenantId);
    }
    queue.push({ job, cap: Math.max(1, Math.floor(cap)) });
  }

  /** Starts every job that may start at `now` (the clock `finish` is given), in the order they start. */
  dispatch(now = 0): Dispatched<T>[] {
    const started: Dispatched<T>[] = [];
    for (let next = this.#pick('sync'); next; next = this.#pick('sync')) {
      this.#syncStartedAt = Math.max(this.#syncStartedAt, now);
      started.push(next);
    }
    for (let next = this.#pickAsync(now); next; next = this.#pickAsync(now)) started.push(next);
    // A sync start may have used a tenant's last unit of cap before async looked; and an async
    // lane pick never frees anything for sync, so one pass over the lanes is complete.
    return started;
  }

  /**
   * When the async lane may start again, if the yield to the sync lane holds it at `now`: the
   * caller dispatches again then (a sync render's start or end brings a dispatch anyway).
   * Undefined when the async lane is not held.
   */
  asyncHeldUntil(now: number): number | undefined {
    if (this.#asyncYieldMs === 0) return undefined;
    const max = this.#asyncYieldMaxMs;
    // Held long enough in a row: one async render goes now.
    const bound = this.#asyncHeldSince === undefined ? Number.POSITIVE_INFINITY : this.#asyncHeldSince + max;
    if (now >= bound) return undefined;
    const reasons: number[] = [];
    if (this.#syncCouldStart()) reasons.push(bound);
    if (this.#lanes.sync.running > 0 && now < this.#syncStartedAt + max) reasons.push(this.#syncStartedAt + max);
    if (now < this.#syncEndedAt + this.#asyncYieldMs) reasons.push(this.#syncEndedAt + this.#asyncYieldMs);
    if (reasons.length === 0) return undefined;
    return Math.min(bound, Math.max(...reasons));
  }

  /**
   * A dispatched job is done (success, failure or crash): its slot and its unit of cap are free.
   * `now` (the clock `dispatch` is given) starts the async lane's yield after a sync render.
   */
  finish(lane: SchedulerLane, tenantId: string, now = 0): void {
    const state = this.#lanes[lane];
    if (state.running === 0) throw new Error(`finish without a running job on the ${lane} lane`);
    const held = this.#inFlight.get(tenantId) ?? 0;
    if (held === 0) throw new Error(`finish without a running job of tenant ${tenantId}`);
    state.running -= 1;
    if (lane === 'sync') this.#syncEndedAt = Math.max(this.#syncEndedAt, now);
    if (held === 1) this.#inFlight.delete(tenantId);
    else this.#inFlight.set(tenantId, held - 1);
  }

  /** Takes a job that has not started out of its queue; false when it is not waiting (started, or unknown). */
  withdraw(lane: SchedulerLane, tenantId: string, job: T): boolean {
    const state = this.#lanes[lane];
    const queue = state.queues.get(tenantId);
    const at = queue?.findIndex((w) => w.job === job) ?? -1;
    if (!queue || at === -1) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.#forget(state, tenantId);
    return true;
  }

  /** Renders in flight of a tenant, both lanes together. */
  inFlight(tenantId: string): number {
    return this.#inFlight.get(tenantId) ?? 0;
  }

  waiting(lane: SchedulerLane): number {
    let n = 0;
    for (const queue of this.#lanes[lane].queues.values()) n += queue.length;
    return n;
  }

  running(lane: SchedulerLane): number {
    return this.#lanes[lane].running;
  }

  /** The async lane's next start, unless the yield holds it (then the hold is timed from now). */
  #pickAsync(now: number): Dispatched<T> | undefined {
    if (this.waiting('async') === 0) {
      this.#asyncHeldSince = undefined;
      return undefined;
    }
    if (this.asyncHeldUntil(now) !== undefined) {
      this.#asyncHeldSince ??= now;
      return undefined;
    }
    const next = this.#pick('async');
    // An async render started: any later hold is counted afresh.
    if (next) this.#asyncHeldSince = undefined;
    return next;
  }

  /** A sync job waits that a free slot would start (its tenant is under its cap). */
  #syncCouldStart(): boolean {
    const sync = this.#lanes.sync;
    return sync.turns.some((tenantId) => this.#headUnderCap(sync, tenantId));
  }

  /** The tenant has a job waiting on this lane and room under its cap for it. */
  #headUnderCap(state: LaneState<T>, tenantId: string): boolean {
    const head = state.queues.get(tenantId)?.[0];
    return head !== undefined && this.inFlight(tenantId) < head.cap;
  }

  #pick(lane: SchedulerLane): Dispatched<T> | undefined {
    const state = this.#lanes[lane];
    if (state.running >= state.slots) return undefined;
    const turn = state.turns.findIndex((tenantId) => this.#headUnderCap(state, tenantId));
    if (turn === -1) return undefined;
    const tenantId = state.turns[turn] as string;
    const queue = state.queues.get(tenantId) as Waiting<T>[];
    const { job } = queue.shift() as Waiting<T>;
    // Served: to the back of the line (or out of it, with nothing left to wait for).
    state.turns.splice(turn, 1);
    if (queue.length > 0) state.turns.push(tenantId);
    else state.queues.delete(tenantId);
    state.running += 1;
    this.#inFlight.set(tenantId, this.inFlight(tenantId) + 1);
    return { lane, tenantId, job };
  }

  #forget(state: LaneState<T>, tenantId: string): void {
    state.queues.delete(tenantId);
    const at = state.turns.indexOf(tenantId);
    if (at !== -1) state.turns.splice(at, 1);
  }
}

/**
 * A tenant's cap on renders in flight in one worker: its plan's setting, but never every
 * page of the worker (when it has more than one), so another tenant always finds a page.
 */
export function tenantRenderCap(planCap: number, pages: number): number {
  const ceiling = pages > 1 ? pages - 1 : 1;
  return Math.max(1, Math.min(Math.floor(planCap), ceiling));
}

/**
 * The configured cap of a plan. A plan with no setting (a new plan, or a record from before
 * plans travelled on the request) gets the smallest configured cap: unknown means least trusted.
 */
export function planRenderCap(caps: Readonly<Record<string, number>>, plan: string | undefined): number {
  const configured = plan !== undefined && Object.hasOwn(caps, plan) ? caps[plan] : undefined;
  if (configured !== undefined) return configured;
  const all = Object.values(caps);
  return all.length > 0 ? Math.min(...all) : 1;
}
