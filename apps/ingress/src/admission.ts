import { asyncLaneOpen, BUSY_RETRY_AFTER_SECONDS, quotaRefusal, type PlanLimits } from '@pressroom/domain';
import type { Clock, EventLog, InFlightRenders, Logger, TopicNames } from '@pressroom/core';
import type { Metrics } from '@pressroom/observability';
import type { RenderRequested } from '@pressroom/schemas';
import { bounded, QUOTA_CHECK_TIMEOUT_MS } from './http/bounded.ts';

export interface AdmissionSettings {
  /** Async backlog at which async requests get 429 BACKLOG_FULL (0: never). */
  asyncBacklogMax: number;
  /** How old the backlog read may be before a request starts a new read (in the background). */
  backlogRefreshMs: number;
  /** How long a render's in-flight lease lasts when its outcome is never seen. */
  renderLeaseMs: number;
}

export interface AdmissionDeps {
  inFlight: InFlightRenders;
  log: Pick<EventLog, 'groupLag'>;
  topics: TopicNames;
  plans: Record<string, PlanLimits>;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
  admission: AdmissionSettings;
}

/** The render workers' group on the async lane (see startRenderWorker): its lag is the backlog. */
const asyncGroupOf = (topics: TopicNames) => `${topics.prefix}.renderer.async`;

/**
 * Admission of render requests, before anything is appended:
 *
 * 1. Back-pressure (async only): past `asyncBacklogMax` records waiting on the async lane, 429
 *    BACKLOG_FULL. The backlog is the render group's lag, read in the background at most every
 *    `backlogRefreshMs` (a request never waits for it; before the first read the lane is open).
 *    Sync requests have their own lane and are never refused for it.
 * 2. Concurrency (sync and async): the tenant's renders accepted and unfinished, over every
 *    ingress, against its plan's concurrentRenders; each render takes a lease, released when its
 *    outcome is seen (status projector), when the request is refused, or by expiry.
 *
 * Fail-open like the rate limit: a quota store fault admits (and is counted); a log that cannot
 * tell its backlog leaves the lane open.
 */
export function createAdmission(deps: AdmissionDeps) {
  let backlog: number | undefined;
  let readAt = -Infinity;
  let reading = false;
  let lastLogged = 0;

  function refreshBacklog(): void {
    const now = deps.clock.now().getTime();
    if (reading || now - readAt < deps.admission.backlogRefreshMs || !deps.log.groupLag) return;
    reading = true;
    deps.log
      .groupLag(asyncGroupOf(deps.topics), [deps.topics.requestedAsync])
      .then(
        (n) => {
          backlog = n;
        },
        (err: unknown) => deps.logger.warn('the async backlog could not be read; the lane stays as it was', { err }),
      )
      .finally(() => {
        readAt = deps.clock.now().getTime();
        reading = false;
      });
  }

  /** Admits the requests (one lane, one tenant) or throws a 429; resolves with what ends their leases if refused later. */
  async function admit(requests: RenderRequested[]): Promise<{ release(): Promise<void> }> {
    const first = requests[0];
    if (!first) return { release: async () => {} };
    if (first.data.mode === 'async' && deps.admission.asyncBacklogMax > 0) {
      refreshBacklog();
      if (!asyncLaneOpen(backlog, deps.admission.asyncBacklogMax)) {
        deps.metrics.quotaRefusalsTotal.inc({ rule: 'backlog' });
        throw quotaRefusal(
          'BACKLOG_FULL',
          'Too many async renders are waiting right now; retry later (sync renders are still taken).',
          BUSY_RETRY_AFTER_SECONDS,
        );
      }
    }
    const plan = deps.plans[first.data.plan ?? ''];
    if (!plan) return { release: async () => {} };
    const ids = requests.map((r) => r.requestId);
    let admitted: boolean;
    try {
      const reserving = deps.inFlight.reserve(
        first.tenantId,
        ids,
        plan.concurrentRenders,
        deps.admission.renderLeaseMs,
        deps.clock.now().getTime(),
      );
      ({ admitted } = await bounded(reserving, QUOTA_CHECK_TIMEOUT_MS));
    } catch (err) {
      deps.metrics.quotaStoreFailuresTotal.inc({ check: 'concurrency' });
      if (Date.now() - lastLogged > 1000) {
        lastLogged = Date.now();
        deps.logger.warn('the concurrency limit could not be checked; the request is let through', { err });
      }
      // A late reservation may still land: a refusal later ends it all the same.
      return { release: () => deps.inFlight.release(first.tenantId, ids).catch(() => {}) };
    }
    if (!admitted) {
      deps.metrics.quotaRefusalsTotal.inc({ rule: 'concurrency' });
      throw quotaRefusal(
        'CONCURRENCY_LIMITED',
        `Your account has ${plan.concurrentRenders} renders in progress, as many as its plan allows at once; retry when one has finished.`,
        BUSY_RETRY_AFTER_SECONDS,
      );
    }
    return { release: () => deps.inFlight.release(first.tenantId, ids).catch(() => {}) };
  }

  return { admit };
}

export type Admission = ReturnType<typeof createAdmission>;
