import type { BuiltMarker } from './ports/built-marker.ts';
import type { EventLog, LogRecord, TopicNames } from './ports/event-log.ts';
import { silentLogger, type Logger } from './ports/logger.ts';

/**
 * The self-rebuilding view pattern, written once. Every view of the log (status, templates,
 * catalog, assets, Idempotency-Keys, webhook deliveries) keeps a "built" marker that lives
 * exactly as long as its data. When the marker is missing (a fresh or flushed Redis, a Redis
 * restarted without persistence, an embedded process that just started) the view is replayed
 * from its topics before it answers: a read that misses, or a write that must see everything
 * (an Idempotency-Key claim, a claim of due deliveries), waits for the rebuild instead of
 * answering from half a view. Replays never wipe: applies are idempotent and forward-only, so
 * writers running meanwhile lose nothing.
 */

export interface ViewRebuildDeps {
  log: EventLog;
  topics: TopicNames;
  logger?: Logger;
}

/** Replays in a row whose store lost its data before the end, before the rebuild gives up. */
const MAX_REPLAYS = 3;

/**
 * Replays `topics` into a view (`visit` applies what concerns it), then runs `finish` (work that
 * needs the whole replay, e.g. scheduling what is still due), marks the view built and logs
 * `<name> rebuilt from the log`. Resolves with the records visited. A view whose store notes its
 * replays (BuiltMarker.startBuild) is marked built only if the store kept the note to the end;
 * otherwise it lost its data meanwhile, and the replay runs again.
 */
export async function replayView(
  view: BuiltMarker,
  deps: ViewRebuildDeps,
  spec: {
    name: string;
    topics: string[];
    visit: (record: LogRecord) => Promise<void> | void;
    finish?: () => Promise<Record<string, unknown>>;
  },
): Promise<number> {
  const logger = deps.logger ?? silentLogger;
  for (let replay = 1; ; replay++) {
    const startedAt = new Date().toISOString();
    const build = view.markBuiltAfter ? await view.startBuild?.() : undefined;
    const events = await deps.log.readAll(spec.topics, spec.visit);
    const more = spec.finish ? await spec.finish() : {};
    let marked = true;
    if (build !== undefined && view.markBuiltAfter) marked = await view.markBuiltAfter(build);
    else await view.markBuilt();
    if (marked) {
      logger.info(`${spec.name} rebuilt from the log`, { events, startedAt, ...more, ...(replay > 1 ? { replays: replay } : {}) });
      return events;
    }
    if (replay >= MAX_REPLAYS) throw new Error(`${spec.name}: its store lost its data during ${replay} replays in a row`);
    logger.warn(`${spec.name} lost its data while it was rebuilt from the log; replaying again`, { replay, events });
  }
}

/**
 * Runs `rebuild` when the view is not built, one rebuild in flight per process (concurrent
 * callers wait for the same one), and tells whether it ran. A failed rebuild is retried by the
 * next caller; `rebuildFailed` may turn its error into the caller's (the marker check's own
 * error is not turned).
 */
export function rebuilder(
  view: Pick<BuiltMarker, 'isBuilt'>,
  rebuild: () => Promise<unknown>,
  rebuildFailed: (err: unknown) => unknown = (err) => err,
): () => Promise<boolean> {
  let running: Promise<unknown> | undefined;
  return async () => {
    if (await view.isBuilt()) return false;
    running ??= rebuild().finally(() => (running = undefined));
    await running.catch((err: unknown) => {
      throw rebuildFailed(err);
    });
    return true;
  };
}

/**
 * A read that, when it misses (`missing`: nothing found by default), is answered again once the
 * view is known to be built: after a rebuild, if one was needed, and also when none was. The
 * first read comes before the marker check, so a rebuild that finished between the two (this
 * process's, or another's after a FLUSHALL) wrote its data after that read and before the marker
 * the check found: the miss is stale, and answering it was a 404 for a request the view held
 * (the commit interval's intermittent 404 in distributed-redis-loss). Only misses pay the second read.
 */
export function healingRead<A extends unknown[], R>(
  ensureBuilt: () => Promise<boolean>,
  read: (...args: A) => Promise<R>,
  missing: (found: R) => boolean = (found) => found === undefined,
): (...args: A) => Promise<R> {
  return async (...args: A): Promise<R> => {
    const found = await read(...args);
    if (!missing(found)) return found;
    await ensureBuilt();
    return read(...args);
  };
}

/** A read of a list that misses when the list is empty. */
export const isEmpty = (found: readonly unknown[]): boolean => found.length === 0;
