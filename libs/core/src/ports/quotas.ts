import type { BucketState, RateDecision, RatePolicy } from '@pressroom/domain';

/**
 * Request-rate buckets, one per API key, shared by every ingress process that shares the store.
 * `take` decides with `takeToken` (@pressroom/domain) atomically: concurrent takes of one key,
 * from any process, never spend the same token twice. One round trip per request.
 */
export interface RateLimiter {
  take(bucket: string, policy: RatePolicy, nowMs: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/**
 * Renders accepted and not yet finished, per tenant, shared by every ingress process. Each is a
 * lease: `release` ends it when its outcome is seen (the ingress for a sync answer or a refusal,
 * the status projector for every outcome); a lease whose outcome is never seen (a process died)
 * expires after `leaseMs`, so the count heals itself.
 */
export interface InFlightRenders {
  /** Admits all `requestIds` (decided by `admitsConcurrent`) and leases them, or none. */
  reserve(
    tenantId: string,
    requestIds: string[],
    cap: number,
    leaseMs: number,
    nowMs: number,
  ): Promise<{ admitted: boolean; inFlight: number }>;
  release(tenantId: string, requestIds: string[]): Promise<void>;
  close(): Promise<void>;
}

/** Both, as one runtime part (one Redis connection in the distributed profile). */
export interface Quotas {
  rateLimiter: RateLimiter;
  inFlight: InFlightRenders;
}

export type { BucketState, RateDecision, RatePolicy };
