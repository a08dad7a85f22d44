import type { Context, Next } from 'koa';
import { quotaRefusal, rateLimitHeaders, type PlanLimits } from '@pressroom/domain';
import type { Clock, Logger, RateLimiter } from '@pressroom/core';
import type { Metrics } from '@pressroom/observability';
import type { AuthState } from './auth.ts';
import { bounded, QUOTA_CHECK_TIMEOUT_MS } from './bounded.ts';

export interface RateLimitDeps {
  rateLimiter: RateLimiter;
  plans: Record<string, PlanLimits>;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
}

/**
 * Every authenticated request takes a token from its API key's bucket (the plan's
 * requestsPerSecond and burst), in one round trip to the shared store; the answer, allowed or
 * not, carries the RateLimit-Policy and RateLimit header fields. Past the burst: 429
 * RATE_LIMITED with Retry-After.
 *
 * Fail-open: when the store cannot answer (Redis down, or no answer within QUOTA_CHECK_TIMEOUT_MS), the request goes on without headers and
 * the fault is counted (pressroom_quota_store_failures_total{check="rate"}) and logged. A quota
 * store outage must never refuse a valid request, and Redis is not on the path that proves a
 * request was taken (the log is).
 */
export function rateLimit(deps: RateLimitDeps) {
  let lastLogged = 0;
  return async (ctx: Context, next: Next): Promise<void> => {
    const { tenant, keyHash } = ctx.state as AuthState;
    const plan = deps.plans[tenant.plan];
    if (!plan) {
      await next();
      return;
    }
    const policy = { requestsPerSecond: plan.requestsPerSecond, burst: plan.burst };
    let decision;
    try {
      decision = await bounded(deps.rateLimiter.take(keyHash, policy, deps.clock.now().getTime()), QUOTA_CHECK_TIMEOUT_MS);
    } catch (err) {
      deps.metrics.quotaStoreFailuresTotal.inc({ check: 'rate' });
      if (Date.now() - lastLogged > 1000) {
        lastLogged = Date.now();
        deps.logger.warn('the rate limit could not be checked; the request is let through', { err });
      }
      await next();
      return;
    }
    ctx.set(rateLimitHeaders(policy, decision));
    if (!decision.allowed) {
      deps.metrics.quotaRefusalsTotal.inc({ rule: 'rate' });
      throw quotaRefusal(
        'RATE_LIMITED',
        `This API key sent more requests than its plan allows (${policy.requestsPerSecond} per second, bursts of ${policy.burst}); retry after ${decision.retryAfterSeconds} s.`,
        decision.retryAfterSeconds,
      );
    }
    await next();
  };
}
