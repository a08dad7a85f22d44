import type { Catalog } from './ports/catalog.ts';
import { healingRead, rebuilder, replayView, type ViewRebuildDeps } from './self-rebuilding.ts';

export type SelfRebuildingDeps = ViewRebuildDeps;

/**
 * Replays the catalog topic into the view (idempotent applies, no wipe, so concurrent writers
 * lose nothing) and marks it built. Resolves with the events applied.
 */
export function rebuildCatalog(catalog: Catalog, deps: SelfRebuildingDeps): Promise<number> {
  return replayView(catalog, deps, {
    name: 'catalog view',
    topics: [deps.topics.catalog],
    visit: async (record) => {
      if ('sequence' in record.event) await catalog.apply(record.event); // catalog events only (they carry a sequence)
    },
  });
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
  const ensureBuilt = rebuilder(view, () => rebuildCatalog(view, deps));
  const healing = <A extends unknown[], R>(read: (...args: A) => Promise<R | undefined>) => healingRead(ensureBuilt, read);

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
