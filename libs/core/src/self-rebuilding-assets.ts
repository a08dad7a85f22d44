import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AssetEvent } from '@pressroom/schemas';
import type { AssetIndex, AssetRecord } from './ports/assets.ts';
import type { Ids } from './ports/clock.ts';
import type { EventLog, TopicNames } from './ports/event-log.ts';
import { healingRead, isEmpty, rebuilder, replayView, type ViewRebuildDeps } from './self-rebuilding.ts';

export type AssetIndexRebuildDeps = ViewRebuildDeps;

const isAssetEvent = (e: { type: string }): e is AssetEvent => e.type === 'AssetUploaded' || e.type === 'AssetDeleted';

/** Replays the assets topic into the index (idempotent, order-independent applies; no wipe) and marks it built. */
export function replayAssetIndex(index: AssetIndex, deps: AssetIndexRebuildDeps): Promise<number> {
  return replayView(index, deps, {
    name: 'asset index',
    topics: [deps.topics.assets],
    visit: async ({ event }) => {
      if (isAssetEvent(event)) await index.apply(event);
    },
  });
}

/**
 * The asset index, made to rebuild itself like the status and catalog views: a read that
 * finds nothing checks the index's marker, and an index that is not built (a fresh or flushed
 * Redis, a Redis restarted without persistence, an embedded process that just started) is
 * rebuilt from the assets topic before the answer. So an uploaded asset is never missing from
 * a render, nor answered 404, because Redis lost its data. One rebuild at a time per process;
 * a failed one is retried by the next miss.
 */
export function selfRebuildingAssetIndex(index: AssetIndex, deps: AssetIndexRebuildDeps): AssetIndex {
  const ensureBuilt = rebuilder(index, () => replayAssetIndex(index, deps));
  return {
    apply: (event) => index.apply(event),
    get: healingRead(ensureBuilt, (tenantId: string, name: string) => index.get(tenantId, name)),
    list: healingRead(ensureBuilt, (tenantId: string) => index.list(tenantId), isEmpty),
    clear: () => index.clear(),
    isBuilt: () => index.isBuilt(),
    markBuilt: () => index.markBuilt(),
    close: () => index.close(),
  };
}

/**
 * Writes assets indexed outside the log (the embedded JSON files, or the Redis hashes of
 * before) as AssetUploaded events with their original time. A name the assets topic mentions
 * already (uploaded or deleted) is skipped, so the import is safe to run again.
 */
export async function importLegacyAssets(
  records: AssetRecord[],
  deps: { log: EventLog; topics: TopicNames; ids: Ids },
): Promise<{ imported: number; skipped: number }> {
  const known = new Set<string>();
  await deps.log.readAll([deps.topics.assets], ({ event }) => {
    if (isAssetEvent(event)) known.add(JSON.stringify([event.tenantId, event.data.name]));
  });
  const events: AssetEvent[] = records
    .filter((r) => !known.has(JSON.stringify([r.tenantId, r.name])))
    .map((r) => ({
      eventId: deps.ids.next(),
      type: 'AssetUploaded',
      version: 1,
      occurredAt: r.createdAt,
      tenantId: r.tenantId,
      data: { name: r.name, contentType: r.contentType as never, bytes: r.bytes, sha256: r.sha256 },
    }));
  for (let i = 0; i < events.length; i += 500) await deps.log.append(deps.topics.assets, events.slice(i, i + 500));
  return { imported: events.length, skipped: records.length - events.length };
}

/** The records of the embedded profile's former asset index: one JSON file per tenant (an array of records). */
export async function readFileAssetIndex(dir: string): Promise<AssetRecord[]> {
  const records: AssetRecord[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json'))) {
    records.push(...(JSON.parse(await readFile(join(dir, file), 'utf8')) as AssetRecord[]));
  }
  return records;
}
