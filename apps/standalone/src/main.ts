import { keepServingOnFaults, onShutdown, openPdfTools, openRenderer, openRuntime } from '@pressroom/runtime';
import { closeServer, startIngressServer } from '@pressroom/ingress';
import { renderWorkerSettings, startBatchFinisher, startRenderWorker } from '@pressroom/render-worker';
import { startAssetProjector, startCatalogProjector, startStatusProjector, startTemplateProjector } from '@pressroom/status-projector';
import { dispatcherSettings, startWebhookDispatcher } from '@pressroom/webhook-dispatcher';
import { createRenderRemoval, startRetentionSweeper } from '@pressroom/core';
import { readConfig } from './config.ts';

// All four apps in one process. This is the composition root, the one app that imports the
// others: each still talks to the rest only through the log and the view.
const config = readConfig();
const rt = await openRuntime(config, 'standalone');
keepServingOnFaults(rt.logger, rt.metrics);
const renderer = await openRenderer(config, rt.logger, rt.metrics);
// The projector first: with a volatile view it rebuilds from the log before anyone asks.
const projector = await startStatusProjector({ ...rt, rebuildOnStart: rt.viewIsVolatile });
const templateProjector = await startTemplateProjector({ ...rt, rebuildOnStart: rt.viewIsVolatile });
const catalogProjector = await startCatalogProjector(rt);
const assetProjector = await startAssetProjector(rt);
const pdfTools = openPdfTools(config, rt.storage);
const worker = await startRenderWorker({
  ...rt,
  renderer,
  assetsFor: (tenantId) => rt.assets.sourceFor(tenantId),
  ...renderWorkerSettings(config),
  view: rt.view,
  pdfTools,
});
// Finishes batches (merge, BatchCompleted) once their last item has an outcome.
const batchFinisher = await startBatchFinisher({ ...rt, mergePdfs: (pdfs) => pdfTools.toolkit.merge(pdfs) });
const dispatcher = await startWebhookDispatcher({ ...rt, settings: dispatcherSettings(config) });
// Retention: our own storage (local disk here) is swept for renders older than their plan keeps.
const sweeper = startRetentionSweeper(createRenderRemoval({ ...rt, own: rt.storage.own, by: 'standalone' }), {
  policy: config.retention.files,
  intervalMs: config.retention.sweepIntervalMs,
  logger: rt.logger,
});
const server = await startIngressServer({ ...rt, readiness: [...rt.readiness, { name: 'chromium', check: () => renderer.ping() }] });
onShutdown(rt.logger, [
  () => closeServer(server),
  () => worker.stop(),
  () => batchFinisher.stop(),
  () => sweeper.stop(),
  () => dispatcher.stop(),
  () => projector.stop(),
  () => templateProjector.stop(),
  () => catalogProjector.stop(),
  () => assetProjector.stop(),
  () => renderer.close(),
  () => rt.close(),
]);
