import {
  startRenderCacheProjector,
  type ArtifactStorage,
  type AssetStore,
  type EventFactory,
  type EventLog,
  type Logger,
  type PayloadHandoff,
  type RenderCacheIndex,
  type RenderHeadStartLink,
  type StatusView,
  type Subscription,
  type TopicNames,
} from '@pressroom/core';
import type { Metrics } from '@pressroom/observability';
import { openPdfTools, openRenderer, type PressroomConfig } from '@pressroom/runtime';
import { startBatchFinisher } from './batch-finisher.ts';
import { startRenderWorker } from './render-worker.ts';
import { renderWorkerSettings } from './settings.ts';

/** What the render side takes from the opened parts (the worker's own process, or the standalone one). */
export interface RenderSideParts {
  log: EventLog;
  view: StatusView;
  storage: ArtifactStorage;
  assets: AssetStore;
  topics: TopicNames;
  event: EventFactory;
  logger: Logger;
  metrics: Metrics;
  /** The render cache index; used only when a plan has the cache (PRESSROOM_PLANS renderCache). */
  renderCache?: RenderCacheIndex;
  /** Payloads the ingress of this process stored (standalone only): see PayloadHandoff. */
  payloadHandoff?: PayloadHandoff;
  /** Sync requests the ingress of this process offers before their append (standalone only): see RenderHeadStart. */
  headStart?: RenderHeadStartLink;
}

/**
 * The render side, composed once for both processes that run it (render-worker's main and
 * standalone): Chromium, the PDF tools, the render worker and the batch finisher, which
 * finishes batches (merge, BatchCompleted) once their last item has an outcome.
 */
export async function startRenderSide(config: PressroomConfig, parts: RenderSideParts) {
  const renderer = await openRenderer(config, parts.logger, parts.metrics);
  const pdfTools = openPdfTools(config, parts.storage);
  const { renderCache: index, ...rest } = parts;
  // The index is a view of the completed topic: kept up to date here, beside its only reader.
  const cacheOn = index !== undefined && Object.values(config.plans).some((p) => p.renderCache === true);
  const cacheProjector = cacheOn
    ? await startRenderCacheProjector({ ...parts, index, replayOnStart: config.profile === 'embedded' })
    : undefined;
  const worker: Subscription = await startRenderWorker({
    ...rest,
    renderer,
    assetsFor: (tenantId) => parts.assets.sourceFor(tenantId),
    ...renderWorkerSettings(config),
    pdfTools,
    ...(cacheOn
      ? {
          renderCache: {
            index,
            allowedForPlan: (plan: string | undefined) =>
              plan === 'standard' || plan === 'high' ? config.plans[plan].renderCache === true : false,
            assetsOf: async (tenantId: string) => (await parts.assets.list(tenantId)).map((a) => ({ name: a.name, sha256: a.sha256 })),
          },
        }
      : {}),
  });
  const batchFinisher = await startBatchFinisher({ ...parts, mergePdfs: (pdfs) => pdfTools.toolkit.merge(pdfs) });
  return { renderer, worker: cacheProjector ? bothStopped(worker, cacheProjector) : worker, batchFinisher };
}

/** One subscription that stops the worker first, then the render cache projector. */
function bothStopped(first: Subscription, second: Subscription): Subscription {
  return {
    async stop() {
      await first.stop();
      await second.stop();
    },
  };
}
