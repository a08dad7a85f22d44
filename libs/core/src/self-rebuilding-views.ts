import type { PressroomEvent } from '@pressroom/schemas';
import type { TopicNames } from './ports/event-log.ts';
import { REPLAY_BATCH } from './projections/status-projector.ts';
import type { StatusView } from './ports/status-view.ts';
import type { TemplateView } from './ports/template-view.ts';
import { healingRead, isEmpty, rebuilder, replayView, type ViewRebuildDeps } from './self-rebuilding.ts';

export const renderTopics = (t: TopicNames) => [t.requestedSync, t.requestedAsync, t.completed];

/**
 * Replays every render event into the status view and marks it built. No wipe first: applies
 * are idempotent and forward-only, so writers running meanwhile lose nothing.
 */
export function replayStatusView(view: StatusView, deps: ViewRebuildDeps): Promise<number> {
  // Applied in batches (two round trips per REPLAY_BATCH events, not two per event).
  let batch: PressroomEvent[] = [];
  const flush = async () => {
    const full = batch;
    batch = [];
    if (full.length) await view.applyMany(full);
  };
  return replayView(view, deps, {
    name: 'status view',
    topics: renderTopics(deps.topics),
    visit: async (record) => {
      if (!('requestId' in record.event)) return;
      batch.push(record.event);
      if (batch.length >= REPLAY_BATCH) await flush();
    },
    finish: async () => {
      await flush();
      return {};
    },
  });
}

/** Replays every template event into the template view and marks it built (no wipe, as above). */
export function replayTemplateView(view: TemplateView, deps: ViewRebuildDeps): Promise<number> {
  return replayView(view, deps, {
    name: 'template view',
    topics: [deps.topics.templates],
    visit: async (record) => {
      if ('templateId' in record.event) await view.apply(record.event);
    },
  });
}

/**
 * The status view, made to rebuild itself: a `get` that finds nothing first checks the view's
 * marker; when the view is not built (a fresh Redis, a FLUSHALL, a restart without persistence)
 * it is rebuilt from the log before the answer, so an accepted request never answers 404
 * because Redis lost its data.
 */
export function selfRebuildingStatusView(view: StatusView, deps: ViewRebuildDeps): StatusView {
  const ensureBuilt = rebuilder(view, () => replayStatusView(view, deps));
  return {
    apply: (event) => view.apply(event),
    get: healingRead(ensureBuilt, (requestId: string) => view.get(requestId)),
    applyMany: (events) => view.applyMany(events),
    getMany: async (requestIds) => {
      await ensureBuilt();
      return view.getMany(requestIds);
    },
    waitForTerminal: (requestId, timeoutMs) => view.waitForTerminal(requestId, timeoutMs),
    clear: () => view.clear(),
    isBuilt: () => view.isBuilt(),
    markBuilt: () => view.markBuilt(),
    ping: () => view.ping(),
    close: () => view.close(),
  };
}

/** The template view, made to rebuild itself the same way (a template never answers 404 because Redis lost it). */
export function selfRebuildingTemplateView(view: TemplateView, deps: ViewRebuildDeps): TemplateView {
  const ensureBuilt = rebuilder(view, () => replayTemplateView(view, deps));
  return {
    apply: (event) => view.apply(event),
    head: healingRead(ensureBuilt, (t: string, id: string) => view.head(t, id)),
    version: healingRead(ensureBuilt, (t: string, id: string, v?: number) => view.version(t, id, v)),
    versions: healingRead(ensureBuilt, (t: string, id: string) => view.versions(t, id), isEmpty),
    list: healingRead(ensureBuilt, (t: string) => view.list(t), isEmpty),
    clear: () => view.clear(),
    isBuilt: () => view.isBuilt(),
    markBuilt: () => view.markBuilt(),
    ping: () => view.ping(),
    close: () => view.close(),
  };
}
