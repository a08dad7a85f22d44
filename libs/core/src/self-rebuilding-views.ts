import type { EventLog, TopicNames } from './ports/event-log.ts';
import { silentLogger, type Logger } from './ports/logger.ts';
import type { StatusView } from './ports/status-view.ts';
import type { TemplateView } from './ports/template-view.ts';

export interface ViewRebuildDeps {
  log: EventLog;
  topics: TopicNames;
  logger?: Logger;
}

export const renderTopics = (t: TopicNames) => [t.requestedSync, t.requestedAsync, t.completed];

/**
 * Replays every render event into the status view and marks it built. No wipe first: applies
 * are idempotent and forward-only, so writers running meanwhile lose nothing.
 */
export async function replayStatusView(view: StatusView, deps: ViewRebuildDeps): Promise<number> {
  const n = await deps.log.readAll(renderTopics(deps.topics), async (record) => {
    if ('requestId' in record.event) await view.apply(record.event);
  });
  await view.markBuilt();
  (deps.logger ?? silentLogger).info('status view rebuilt from the log', { events: n });
  return n;
}

/** Replays every template event into the template view and marks it built (no wipe, as above). */
export async function replayTemplateView(view: TemplateView, deps: ViewRebuildDeps): Promise<number> {
  const n = await deps.log.readAll([deps.topics.templates], async (record) => {
    if ('templateId' in record.event) await view.apply(record.event);
  });
  await view.markBuilt();
  (deps.logger ?? silentLogger).info('template view rebuilt from the log', { events: n });
  return n;
}

/**
 * Runs `rebuild` when the view is not built, one at a time per process, and tells whether it
 * ran. A failed rebuild is retried by the next caller.
 */
function rebuilder(isBuilt: () => Promise<boolean>, rebuild: () => Promise<unknown>): () => Promise<boolean> {
  let running: Promise<unknown> | undefined;
  return async () => {
    if (await isBuilt()) return false;
    running ??= rebuild().finally(() => (running = undefined));
    await running;
    return true;
  };
}

/**
 * The status view, made to rebuild itself: a `get` that finds nothing first checks the view's
 * marker; when the view is not built (a fresh Redis, a FLUSHALL, a restart without persistence)
 * it is rebuilt from the log before the answer, so an accepted request never answers 404
 * because Redis lost its data.
 */
export function selfRebuildingStatusView(view: StatusView, deps: ViewRebuildDeps): StatusView {
  const ensureBuilt = rebuilder(
    () => view.isBuilt(),
    () => replayStatusView(view, deps),
  );
  return {
    apply: (event) => view.apply(event),
    async get(requestId) {
      const found = await view.get(requestId);
      if (found !== undefined) return found;
      return (await ensureBuilt()) ? view.get(requestId) : undefined;
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
  const ensureBuilt = rebuilder(
    () => view.isBuilt(),
    () => replayTemplateView(view, deps),
  );
  const healing =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>, missing: (r: R) => boolean) =>
    async (...args: A): Promise<R> => {
      const found = await read(...args);
      if (!missing(found)) return found;
      return (await ensureBuilt()) ? read(...args) : found;
    };
  return {
    apply: (event) => view.apply(event),
    head: healing(
      (t: string, id: string) => view.head(t, id),
      (r) => r === undefined,
    ),
    version: healing(
      (t: string, id: string, v?: number) => view.version(t, id, v),
      (r) => r === undefined,
    ),
    versions: healing(
      (t: string, id: string) => view.versions(t, id),
      (r) => r.length === 0,
    ),
    list: healing(
      (t: string) => view.list(t),
      (r) => r.length === 0,
    ),
    clear: () => view.clear(),
    isBuilt: () => view.isBuilt(),
    markBuilt: () => view.markBuilt(),
    ping: () => view.ping(),
    close: () => view.close(),
  };
}
