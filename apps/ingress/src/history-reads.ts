import pLimit from 'p-limit';
import { historyBusy } from '@pressroom/domain';

/** History reads that read the log at once in one ingress process; more wait their turn. */
export const HISTORY_READS_AT_ONCE = 2;
/** History reads one tenant may have under way or waiting in one ingress process; more are refused. */
export const HISTORY_READS_PER_TENANT = 2;

/**
 * The gate in front of the history endpoints (`GET /v1/pdf/{id}/events`, `GET /v1/renders`).
 * Each read goes through the render topics of the log, so its cost grows with the log: without a
 * bound, one tenant sending them in parallel (its rate limit allows 25 a second) would spend every
 * core reading the log, and every tenant's renders would wait. So at most `atOnce` run at once,
 * the others wait in arrival order, and a tenant with `perTenant` already under way or waiting
 * gets 429 HISTORY_BUSY (it cannot queue without bound, nor hold the gate against the others).
 */
export function createHistoryReads(opts: { atOnce: number; perTenant: number }) {
  const limit = pLimit(opts.atOnce);
  const pending = new Map<string, number>();
  return {
    async run<T>(tenantId: string, read: () => Promise<T>): Promise<T> {
      const held = pending.get(tenantId) ?? 0;
      if (held >= opts.perTenant) throw historyBusy(opts.perTenant);
      pending.set(tenantId, held + 1);
      try {
        return await limit(read);
      } finally {
        const left = (pending.get(tenantId) ?? 1) - 1;
        if (left === 0) pending.delete(tenantId);
        else pending.set(tenantId, left);
      }
    },
  };
}
