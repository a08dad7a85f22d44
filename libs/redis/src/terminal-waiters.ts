import type { Redis } from 'ioredis';
import type { Logger } from '@pressroom/core';
import { isTerminal } from '@pressroom/domain';
import type { StatusViewEntry } from '@pressroom/schemas';

type Wake = (entry: StatusViewEntry) => void;

/**
 * The local side of "wake waiters in every process": one subscriber connection per status
 * view instance listens on the view's channel (each message is a requestId that just became
 * terminal). For an id that has waiters here, the entry is read once and handed to all of
 * them. After a reconnect every waited-on id is re-read, since a notification sent while the
 * connection was down is lost.
 */
export class TerminalWaiters {
  readonly #waiters = new Map<string, Set<Wake>>();
  readonly #channel: string;
  readonly #load: (requestId: string) => Promise<StatusViewEntry | undefined>;
  readonly #logger: Logger;
  /** Settles when the first SUBSCRIBE is acknowledged: before that, a wake-up could be missed. */
  readonly ready: Promise<void>;

  constructor(args: {
    subscriber: Redis;
    channel: string;
    load: (requestId: string) => Promise<StatusViewEntry | undefined>;
    logger: Logger;
  }) {
    const { subscriber } = args;
    this.#channel = args.channel;
    this.#load = args.load;
    this.#logger = args.logger;
    subscriber.on('message', (channel: string, requestId: string) => {
      if (channel === this.#channel) void this.#check(requestId);
    });
    this.ready = subscriber.subscribe(this.#channel).then(() => {
      this.#subscribed = true;
    });
    subscriber.on('ready', () => {
      // ioredis re-subscribes by itself after a reconnect; catch up on what was missed meanwhile.
      if (this.#subscribed) this.checkAll();
    });
    this.#subscriber = subscriber;
  }

  readonly #subscriber: Redis;
  #subscribed = false;

  /** True while notifications can arrive: subscribed once and connected now. */
  get live(): boolean {
    return this.#subscribed && this.#subscriber.status === 'ready';
  }

  /** Registers `wake` for `requestId`; the returned function removes it. */
  add(requestId: string, wake: Wake): () => void {
    let set = this.#waiters.get(requestId);
    if (!set) this.#waiters.set(requestId, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.#waiters.get(requestId) === set) this.#waiters.delete(requestId);
    };
  }

  /** Re-reads every waited-on entry and wakes the waiters of the terminal ones. */
  checkAll(): void {
    for (const requestId of this.#waiters.keys()) void this.#check(requestId);
  }

  /** How many waiters are registered (a waiter that timed out must not stay). */
  get size(): number {
    let n = 0;
    for (const set of this.#waiters.values()) n += set.size;
    return n;
  }

  async #check(requestId: string): Promise<void> {
    if (!this.#waiters.has(requestId)) return;
    try {
      const entry = await this.#load(requestId);
      if (!entry || !isTerminal(entry)) return;
      for (const wake of [...(this.#waiters.get(requestId) ?? [])]) wake(entry);
    } catch (error) {
      // The waiters stay registered: their timeout still reads the entry and settles them.
      this.#logger.warn('could not read a status entry to wake its waiters', { requestId, error: (error as Error).message });
    }
  }
}
