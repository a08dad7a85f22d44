import { admitsConcurrent, takeToken, type BucketState } from '@pressroom/domain';
import type { InFlightRenders, RateLimiter } from '../ports/quotas.ts';

/** The embedded profile's rate buckets: one process, so a Map is atomic. Idle full buckets are dropped. */
export function createMemoryRateLimiter(): RateLimiter {
  const buckets = new Map<string, BucketState>();
  return {
    async take(bucket, policy, nowMs) {
      const decision = takeToken(buckets.get(bucket), policy, nowMs);
      buckets.set(bucket, decision.next);
      if (buckets.size > 10_000) {
        // Bounded memory: a bucket full again holds nothing a new one would not.
        for (const [k, s] of buckets)
          if (s.tokens + ((nowMs - s.atMs) * policy.requestsPerSecond) / 1000 >= policy.burst) buckets.delete(k);
      }
      return decision;
    },
    async close() {},
  };
}

/** The embedded profile's in-flight renders: leases per tenant in a Map. */
export function createMemoryInFlightRenders(): InFlightRenders {
  const leases = new Map<string, Map<string, number>>();
  const live = (tenantId: string, nowMs: number) => {
    const m = leases.get(tenantId) ?? new Map<string, number>();
    for (const [id, until] of m) if (until <= nowMs) m.delete(id);
    leases.set(tenantId, m);
    return m;
  };
  return {
    async reserve(tenantId, requestIds, cap, leaseMs, nowMs) {
      const m = live(tenantId, nowMs);
      const admitted = admitsConcurrent(m.size, requestIds.length, cap);
      if (admitted) for (const id of requestIds) m.set(id, nowMs + leaseMs);
      return { admitted, inFlight: m.size };
    },
    async release(tenantId, requestIds) {
      const m = leases.get(tenantId);
      for (const id of requestIds) m?.delete(id);
      if (m?.size === 0) leases.delete(tenantId);
    },
    async close() {},
  };
}
