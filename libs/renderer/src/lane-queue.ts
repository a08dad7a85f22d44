export type Lane = 'sync' | 'async';

interface Waiter<T> {
  resolve(item: T): void;
  reject(err: Error): void;
}

/**
 * Hands a fixed set of items (page slots) to callers, one item per caller: a caller waits while
 * none is free, and a freed item goes to the oldest waiting 'sync' caller before any 'async' one.
 * The set bounds the work in flight; the waiters themselves are not bounded here, because
 * back-pressure comes from the callers, who await their render before taking the next job.
 */
export class LaneQueue<T> {
  readonly #free: T[] = [];
  readonly #waiting: Record<Lane, Waiter<T>[]> = { sync: [], async: [] };
  #closedWith: Error | undefined;

  constructor(items: Iterable<T> = []) {
    for (const item of items) this.#free.push(item);
  }

  take(lane: Lane): Promise<T> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    const item = this.#free.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => this.#waiting[lane].push({ resolve, reject }));
  }

  give(item: T): void {
    const next = this.#waiting.sync.shift() ?? this.#waiting.async.shift();
    if (next) next.resolve(item);
    else this.#free.push(item);
  }

  /** Rejects every waiter and every later take() with `err`. */
  close(err: Error): void {
    this.#closedWith = err;
    for (const lane of ['sync', 'async'] as const) {
      for (const w of this.#waiting[lane].splice(0)) w.reject(err);
    }
  }

  /** Removes and returns the free items (to destroy them at shutdown). */
  drainFree(): T[] {
    return this.#free.splice(0);
  }

  get freeCount(): number {
    return this.#free.length;
  }

  waitingCount(lane: Lane): number {
    return this.#waiting[lane].length;
  }
}
