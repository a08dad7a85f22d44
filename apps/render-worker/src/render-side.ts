import type { ArtifactStorage, AssetStore, EventFactory, EventLog, Logger, StatusView, Subscription, TopicNames } from '@pressroom/core';
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
}

/**
 * The render side, composed once for both processes that run it (render-worker's main and
 * standalone): Chromium, the PDF tools, the render worker and the batch finisher, which
 * finishes batches (merge, BatchCompleted) once their last item has an outcome.
 */
export async function startRenderSide(config: PressroomConfig, parts: RenderSideParts) {
  const renderer = await openRenderer(config, parts.logger, parts.metrics);
  const pdfTools = openPdfTools(config, parts.storage);
  const worker: Subscription = await startRenderWorker({
    ...parts,
    renderer,
    assetsFor: (tenantId) => parts.assets.sourceFor(tenantId),
    ...renderWorkerSettings(config),
    pdfTools,
  });
  const batchFinisher = await startBatchFinisher({ ...parts, mergePdfs: (pdfs) => pdfTools.toolkit.merge(pdfs) });
  return { renderer, worker, batchFinisher };
}
