import type { Logger } from '@pressroom/core';

export interface DeliveryLoopOptions {
  /** Hands out due requestIds, leased to this caller. */
  claimDue(limit: number): Promise<string[]>;
  nextDueAt(): Promise<number | undefined>;
  attempt(requestId: string): Promise<void>;
  now(): number;
  concurrency: number;
  /** Longest sleep: other processes may schedule work this one is not told about. */
  pollMs: number;
  logger: Logger;
}

export interface DeliveryLoop {
  /** Something became due now (a new result, a replay): look at once. */
  wake(): void;
  /** Stops claiming and waits for the attempts in flight. */
  stop(): Promise<void>;
}

/**
 * Runs due attempts, up to `concurrency` at once, outside any log consumer: a slow or failing
 * receiver holds one slot for at most one attempt's time limit, and a retry waits in the
 * schedule, not in a handler, so it never delays other deliveries (no head-of-line blocking).
 * It sleeps until the next due time, a wake-up, a finished attempt, or `pollMs`, whichever
 * comes first, so it neither hot-loops nor misses work.
 */
export function startDeliveryLoop(opts: DeliveryLoopOptions): DeliveryLoop {
  const inflight = new Set<Promise<void>>();
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  let woken = false;
  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  const run = (async () => {
    while (!stopped) {
      woken = false;
      const free = opts.concurrency - inflight.size;
      let scheduleDown = false;
      if (free > 0) {
        const claimed = await opts.claimDue(free).catch((err: unknown) => {
          opts.logger.warn('webhooks: could not read the schedule', { err });
          scheduleDown = true;
          return [];
        });
        for (const id of claimed) {
          const job: Promise<void> = opts
            .attempt(id)
            .catch((err: unknown) => opts.logger.error('webhook attempt failed; retried when its lease ends', { requestId: id, err }))
            .finally(() => {
              inflight.delete(job);
              wake();
            });
          inflight.add(job);
        }
        if (claimed.length === free) continue; // maybe more are due
      }
      let waitMs = opts.pollMs;
      if (free > 0 && !scheduleDown) {
        const next = await opts.nextDueAt().catch(() => undefined);
        if (next !== undefined) waitMs = Math.min(opts.pollMs, Math.max(0, next - opts.now()));
      }
      if (woken || stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(waitMs, 5));
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    }
  })();

  return {
    wake,
    async stop() {
      stopped = true;
      wake();
      await run;
      await Promise.allSettled([...inflight]);
    },
  };
}
