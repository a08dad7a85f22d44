import type { EventLog, Subscription, TopicNames } from '../ports/event-log.ts';
import type { Logger } from '../ports/logger.ts';
import type { StatusView } from '../ports/status-view.ts';
import type { InFlightRenders } from '../ports/quotas.ts';

export interface StatusProjectorDeps {
  log: EventLog;
  view: StatusView;
  topics: TopicNames;
  logger: Logger;
  group?: string;
  /**
   * For a view that does not outlive the process (the embedded, in-memory one): rebuild it
   * from the whole log before following new events.
   */
  rebuildOnStart?: boolean;
  /**
   * With `rebuildOnStart`: how to build it instead of replaying the whole log (the embedded
   * profile loads its snapshot and replays the tail, see view-snapshots.ts).
   */
  restore?: () => Promise<unknown>;
  /**
   * The tenants' in-flight renders: each outcome (or withdrawal) ends its render's lease, in
   * whichever process accepted it. Without it, leases end by their own expiry.
   */
  inFlight?: InFlightRenders;
}

/** Events after which a render no longer counts against its tenant's concurrentRenders. */
const ENDS_RENDER = new Set(['RenderSucceeded', 'RenderFailed', 'RenderWithdrawn']);

const renderTopics = (t: TopicNames) => [t.requestedSync, t.requestedAsync, t.completed];

/**
 * Builds the status view from render events. `apply` is idempotent and forward-only, so
 * redelivery, out-of-order topics and a concurrent writer (the ingress) are all harmless.
 */
export async function startStatusProjector(deps: StatusProjectorDeps): Promise<Subscription> {
  if (deps.rebuildOnStart) await (deps.restore ? deps.restore() : rebuildStatusView(deps));
  return deps.log.consume({
    group: deps.group ?? `${deps.topics.prefix}.status-projector`,
    topics: renderTopics(deps.topics),
    concurrency: 16,
    handle: async (record) => {
      if (!('requestId' in record.event)) return;
      await deps.view.apply(record.event);
      const { event } = record;
      if (deps.inFlight && ENDS_RENDER.has(event.type)) {
        // Best effort: a lease not released here expires by itself (a Redis fault never stalls the view).
        await deps.inFlight.release(event.tenantId, [event.requestId]).catch((err: unknown) => {
          deps.logger.warn('an in-flight render lease could not be released; it expires by itself', { requestId: event.requestId, err });
        });
      }
    },
  });
}

/** Wipes the view and replays every render event from the log. Returns the events applied. */
export async function rebuildStatusView(deps: Pick<StatusProjectorDeps, 'log' | 'view' | 'topics' | 'logger'>): Promise<number> {
  await deps.view.clear();
  const n = await deps.log.readAll(renderTopics(deps.topics), async (record) => {
    if ('requestId' in record.event) await deps.view.apply(record.event);
  });
  await deps.view.markBuilt();
  deps.logger.info('status view rebuilt from the log', { events: n });
  return n;
}
