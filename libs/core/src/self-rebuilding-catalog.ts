import type { Catalog } from './ports/catalog.ts';
import type { EventLog, TopicNames } from './ports/event-log.ts';
import { silentLogger, type Logger } from './ports/logger.ts';

export interface SelfRebuildingDeps {
  log: EventLog;
  topics: TopicNames;
  logger?: Logger;
}

/**
 * Replays the catalog topic into the view (idempotent applies, no wipe, so concurrent writers
 * lose nothing) and marks it built. Resolves with the events applied.
 */
export async function rebuildCatalog(catalog: Catalog, deps: SelfRebuildingDeps): Promise<number> {
  const n = await deps.log.readAll([deps.topics.catalog], async (record) => {
    if ('sequence' in record.event) await catalog.apply(record.event); // catalog events only (they carry a sequence)
  });
  await catalog.markBuilt();
  (deps.logger ?? silentLogger).info('catalog view rebuilt from the log', { events: n });
  return n;
}

/**
 * The catalog view, made to rebuild itself: a read that finds nothing first asks whether the
 * view is built (its marker survives exactly as long as its data); when it is not (a fresh
 * Redis, a FLUSHALL, a restart without persistence) the view is rebuilt from the catalog topic
 * before the read is answered. So a valid API key is never refused, nor a webhook secret
 * replaced, because Redis lost its data: the caller waits for the rebuild instead. One
 * rebuild at a time per process; a failed one is retried by the next miss.
 */
export function selfRebuildingCatalog(view: Catalog, deps: SelfRebuildingDeps): Catalog {
  let rebuilding: Promise<unknown> | undefined;
  const ensureBuilt = async (): Promise<boolean> => {
    if (await view.isBuilt()) return false;
    rebuilding ??= rebuildCatalog(view, deps).finally(() => (rebuilding = undefined));
    await rebuilding;
    return true;
  };
  /** A read that misses is answered again after a rebuild, if one was needed. */
  const healing =
    <A extends unknown[], R>(read: (...args: A) => Promise<R | undefined>) =>
    async (...args: A): Promise<R | undefined> => {
      const found = await read(...args);
      if (found !== undefined) return found;
      return (await ensureBuilt()) ? read(...args) : undefined;
    };

  return {
    ...view,
    apply: (event) => view.apply(event),
    getTenant: healing((tenantId: string) => view.getTenant(tenantId)),
    findApiKey: healing((keyHash: string) => view.findApiKey(keyHash)),
    getS3Connection: healing((tenantId: string, connectionId: string) => view.getS3Connection(tenantId, connectionId)),
    getWebhookSecrets: healing((tenantId: string) => view.getWebhookSecrets(tenantId)),
    async listApiKeys(tenantId) {
      await ensureBuilt();
      return view.listApiKeys(tenantId);
    },
    async listS3Connections(tenantId) {
      await ensureBuilt();
      return view.listS3Connections(tenantId);
    },
    recordKeyUse: (tenantId, keyId, at) => view.recordKeyUse(tenantId, keyId, at),
    async streamVersion(tenantId) {
      await ensureBuilt();
      return view.streamVersion(tenantId);
    },
    isBuilt: () => view.isBuilt(),
    markBuilt: () => view.markBuilt(),
    clear: () => view.clear(),
    ping: () => view.ping(),
    close: () => view.close(),
  };
}
