import type { LogEvent } from '@pressroom/schemas';
import { IGNORED, type EventLog, type Handled, type Subscription, type TopicNames } from '../ports/event-log.ts';
import type { Logger } from '../ports/logger.ts';
import type { RenderCacheIndex } from '../ports/render-cache.ts';

export interface RenderCacheProjectorDeps {
  log: EventLog;
  index: RenderCacheIndex;
  topics: TopicNames;
  logger: Logger;
  group?: string;
  /**
   * For an index that does not outlive the process (memory): replay the completed topic into it
   * first, in the background (until it is done, a render misses and is rendered: no wrong file).
   */
  replayOnStart?: boolean;
}

/**
 * A RenderSucceeded that recorded a content key: its file is what the key renders to. The worker
 * also applies its own outcome right after appending it (reads its own write: the next identical
 * request finds it at once); the projector makes every outcome reach the index, also after a loss.
 */
export async function applyToRenderCache(index: RenderCacheIndex, event: LogEvent): Promise<Handled> {
  if (event.type !== 'RenderSucceeded' || !event.data.cache) return IGNORED;
  const { artifact, pages } = event.data;
  // Only our own storage, only the tenant's own prefix: what the worker may copy from.
  if (artifact.target.kind !== 'default' || !artifact.key.startsWith(`${event.tenantId}/`)) return IGNORED;
  await index.put(event.tenantId, event.data.cache.key, {
    requestId: event.requestId,
    key: artifact.key,
    contentType: artifact.contentType,
    bytes: artifact.bytes,
    ...(pages !== undefined ? { pages } : {}),
  });
}

/** Builds the render cache index from the completed topic (the index is a view of the log). */
export async function startRenderCacheProjector(deps: RenderCacheProjectorDeps): Promise<Subscription> {
  if (deps.replayOnStart) {
    void deps.log
      .readAll([deps.topics.completed], async (record) => {
        await applyToRenderCache(deps.index, record.event);
      })
      .then((n) => deps.logger.info('render cache index replayed from the log', { events: n }))
      .catch((err: unknown) =>
        deps.logger.warn('replaying the render cache index failed; identical renders render until it fills', { err }),
      );
  }
  return deps.log.consume({
    group: deps.group ?? `${deps.topics.prefix}.render-cache`,
    topics: [deps.topics.completed],
    concurrency: 16,
    handle: (record) => applyToRenderCache(deps.index, record.event),
  });
}
