import type { PressroomEvent } from '@pressroom/schemas';
import { IGNORED, type EventLog, type Subscription, type TopicNames } from '../ports/event-log.ts';
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
      if (!('requestId' in record.event)) return IGNORED;
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

/** Render events applied per `applyMany` when a replay reads the log: two Redis round trips per batch, not per event. */
export const REPLAY_BATCH = 1_000;

/**
 * Reads every record of `topics` and hands the render events (those of a request) to `apply`
 * in batches of REPLAY_BATCH, in log order; the read waits while a batch is applied. Resolves
 * with the records read.
 */
export async function replayInBatches(
  log: EventLog,
  topics: string[],
  apply: (events: PressroomEvent[]) => Promise<void>,
): Promise<number> {
  let batch: PressroomEvent[] = [];
  const n = await log.readAll(topics, async (record) => {
    if (!('requestId' in record.event)) return;
    batch.push(record.event);
    if (batch.length < REPLAY_BATCH) return;
    const full = batch;
    batch = [];
    await apply(full);
  });
  if (batch.length) await apply(batch);
  return n;
}

/** Wipes the view and replays every render event from the log. Returns the events applied. */
export async function rebuildStatusView(deps: Pick<StatusProjectorDeps, 'log' | 'view' | 'topics' | 'logger'>): Promise<number> {
  await deps.view.clear();
  const n = await replayInBatches(deps.log, renderTopics(deps.topics), (events) => deps.view.applyMany(events));
  await deps.view.markBuilt();
  deps.logger.info('status view rebuilt from the log', { events: n });
  return n;
}
