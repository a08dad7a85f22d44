import type { Catalog } from '../ports/catalog.ts';
import type { EventLog, Subscription, TopicNames } from '../ports/event-log.ts';
import type { Logger } from '../ports/logger.ts';

export interface CatalogProjectorDeps {
  log: EventLog;
  catalog: Catalog;
  topics: TopicNames;
  logger: Logger;
  group?: string;
}

/**
 * Builds the catalog view from catalog events. The writer applies its own events too (to read
 * its own write); this projector is what makes the view complete whoever wrote, also when a
 * writer died between its append and its apply. `apply` is idempotent and forward-only.
 */
export async function startCatalogProjector(deps: CatalogProjectorDeps): Promise<Subscription> {
  return deps.log.consume({
    group: deps.group ?? `${deps.topics.prefix}.catalog-projector`,
    topics: [deps.topics.catalog],
    concurrency: 4,
    handle: async (record) => {
      if ('sequence' in record.event) await deps.catalog.apply(record.event); // catalog events only (they carry a sequence)
    },
  });
}
