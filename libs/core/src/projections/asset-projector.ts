import type { AssetIndex } from '../ports/assets.ts';
import type { EventLog, Subscription, TopicNames } from '../ports/event-log.ts';

export interface AssetProjectorDeps {
  log: EventLog;
  assetIndex: AssetIndex;
  topics: TopicNames;
  group?: string;
}

/**
 * Builds the asset index from asset events. The uploading ingress applies its own event too
 * (to read its own write); this projector makes the index complete whoever wrote, also when a
 * writer died between its append and its apply. `apply` is idempotent and order-independent.
 */
export async function startAssetProjector(deps: AssetProjectorDeps): Promise<Subscription> {
  return deps.log.consume({
    group: deps.group ?? `${deps.topics.prefix}.asset-projector`,
    topics: [deps.topics.assets],
    concurrency: 4,
    handle: async ({ event }) => {
      if (event.type === 'AssetUploaded' || event.type === 'AssetDeleted') await deps.assetIndex.apply(event);
    },
  });
}
