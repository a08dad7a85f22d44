import type { Logger } from '@pressroom/core';
import { LaneQueue, type Lane } from './lane-queue.ts';

/** How the pool makes, cleans and destroys its pages; the Chromium one is in warm-page.ts. */
export interface PageLifecycle<P> {
  open(): Promise<P>;
  /** Makes a used page fit for the next job; rejects when it cannot (the page is then replaced). */
  reset(page: P): Promise<void>;
  /** Destroys a page for good; must settle even when the page is hung. */
  dispose(page: P): Promise<void>;
  /** False once the page or its browser is gone. */
  usable(page: P): boolean;
}

export interface Lease<P> {
  readonly page: P;
  /**
   * Gives the page back. With `discard` (a timeout, a crash, an unknown failure) or after
   * `recycleAfter` uses the page is replaced; otherwise it is reset. Either happens before the
   * page goes to the next job, but the caller need not wait for it.
   */
  release(opts?: { discard?: boolean }): Promise<void>;
}

export interface PagePoolOptions<P> {
  /** Jobs at once (each holds one page). */
  size: number;
  /**
   * Pages kept beyond `size` (default 0), so that a job never waits for the reset of the page the
   * last job freed, even when `size` jobs run at once: the reset stays off the request's path.
   * They cost memory (a renderer process each), not CPU per job.
   */
  spares?: number;
  recycleAfter: number;
  lifecycle: PageLifecycle<P>;
  logger: Logger;
}

export interface PagePoolStats {
  /** Jobs at once. */
  size: number;
  /** Pages kept beyond `size` (see PagePoolOptions.spares). */
  spares: number;
  /** Leased to a job. */
  busy: number;
  /** Ready for the next job. */
  idle: number;
  /** Being reset or replaced between two jobs. */
  preparing: number;
  waitingSync: number;
  waitingAsync: number;
  opened: number;
  replaced: number;
}

interface Slot<P> {
  id: number;
  page: P | undefined;
  uses: number;
}

/** PoolClosedError happens when a job asks for a page after (or while waiting when) the pool closed. */
export class PoolClosedError extends Error {
  constructor() {
    super('the renderer is closed');
    this.name = 'PoolClosedError';
  }
}

/**
 * A fixed number of pages, each used by one job at a time, at most `size` jobs at once. Jobs wait
 * for a turn, sync lane first, then for a free page (the one freed longest ago). A page is reset
 * between jobs and replaced after `recycleAfter` jobs or when a job says it is spoiled; a page
 * that became unusable while idle (its browser died) is replaced when next taken. With `spares`,
 * a job's turn ends when it releases its page, before the page's reset: the next job takes a
 * spare page that is ready.
 */
export class PagePool<P> {
  readonly #opts: PagePoolOptions<P>;
  readonly #slots: Slot<P>[];
  readonly #queue: LaneQueue<Slot<P>>;
  /** One turn per job at once (`size`): the lanes' order is kept here. */
  readonly #turns: LaneQueue<number>;
  #busy = 0;
  #opened = 0;
  #replaced = 0;
  #closed = false;

  constructor(opts: PagePoolOptions<P>) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new RangeError('pool size must be a positive integer');
    if (!Number.isInteger(opts.recycleAfter) || opts.recycleAfter < 1) {
      throw new RangeError('recycleAfter must be a positive integer');
    }
    const spares = opts.spares ?? 0;
    if (!Number.isInteger(spares) || spares < 0) throw new RangeError('spares must be a non-negative integer');
    this.#opts = opts;
    this.#slots = Array.from({ length: opts.size + spares }, (_, id) => ({ id, page: undefined, uses: 0 }));
    this.#queue = new LaneQueue(this.#slots);
    this.#turns = new LaneQueue(Array.from({ length: opts.size }, (_, i) => i));
  }

  /** Opens every page now, so the first jobs do not pay for it and a broken browser shows at start. */
  async warm(): Promise<void> {
    await Promise.all(
      this.#slots.map(async (slot) => {
        slot.page ??= await this.#open();
      }),
    );
  }

  async acquire(lane: Lane): Promise<Lease<P>> {
    const turn = await this.#turns.take(lane);
    let slot: Slot<P>;
    try {
      slot = await this.#queue.take(lane);
    } catch (err) {
      this.#turns.give(turn);
      throw err;
    }
    try {
      if (slot.page === undefined || !this.#opts.lifecycle.usable(slot.page)) await this.#replace(slot, 'unusable');
    } catch (err) {
      this.#queue.give(slot);
      this.#turns.give(turn);
      throw err;
    }
    this.#busy++;
    const page = slot.page as P;
    let released: Promise<void> | undefined;
    return {
      page,
      release: (opts) => (released ??= this.#release(slot, turn, opts?.discard ?? false)),
    };
  }

  stats(): PagePoolStats {
    return {
      size: this.#opts.size,
      spares: this.#slots.length - this.#opts.size,
      busy: this.#busy,
      idle: this.#queue.freeCount,
      preparing: this.#slots.length - this.#busy - this.#queue.freeCount,
      waitingSync: this.#turns.waitingCount('sync') + this.#queue.waitingCount('sync'),
      waitingAsync: this.#turns.waitingCount('async') + this.#queue.waitingCount('async'),
      opened: this.#opened,
      replaced: this.#replaced,
    };
  }

  /** Rejects waiting jobs and destroys idle pages; pages in use are destroyed when released. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#turns.close(new PoolClosedError());
    this.#queue.close(new PoolClosedError());
    await Promise.all(this.#queue.drainFree().map((slot) => this.#dispose(slot)));
  }

  async #release(slot: Slot<P>, turn: number, discard: boolean): Promise<void> {
    this.#busy--;
    slot.uses++;
    // The job is over: the next one may start, on a spare page if there is one ready.
    this.#turns.give(turn);
    if (this.#closed) return this.#dispose(slot);
    try {
      if (discard) await this.#replace(slot, 'spoiled');
      else if (slot.uses >= this.#opts.recycleAfter) await this.#replace(slot, 'recycled');
      else await this.#reset(slot);
    } catch (err) {
      // The slot stays empty; the next job to take it opens a page (and reports the failure).
      this.#opts.logger.error('could not prepare a page for the next job', { slot: slot.id, err });
    }
    this.#queue.give(slot);
  }

  async #reset(slot: Slot<P>): Promise<void> {
    try {
      await this.#opts.lifecycle.reset(slot.page as P);
    } catch (err) {
      this.#opts.logger.warn('page reset failed; replacing it', { slot: slot.id, err });
      await this.#replace(slot, 'reset failed');
    }
  }

  async #replace(slot: Slot<P>, reason: string): Promise<void> {
    if (slot.page !== undefined) {
      this.#replaced++;
      this.#opts.logger.debug('replacing page', { slot: slot.id, reason, uses: slot.uses });
      await this.#dispose(slot);
    }
    slot.page = await this.#open();
  }

  async #dispose(slot: Slot<P>): Promise<void> {
    const page = slot.page;
    slot.page = undefined;
    slot.uses = 0;
    if (page !== undefined) await this.#opts.lifecycle.dispose(page).catch(() => {});
  }

  async #open(): Promise<P> {
    const page = await this.#opts.lifecycle.open();
    this.#opened++;
    return page;
  }
}
