import { keepServingOnFaults, onShutdown, openParts, openPdfTools, openRenderer } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { readConfig } from './config.ts';
import { startRenderWorker } from './render-worker.ts';
import { startBatchFinisher } from './batch-finisher.ts';
import { renderWorkerSettings } from './settings.ts';

const config = readConfig();
// What RenderWorkerDeps names: the log, the status view (read, never waited on), storage, assets.
const rt = await openParts(config, 'render-worker', ['log', 'view', 'storage', 'assets'], { statusWaits: false });
keepServingOnFaults(rt.logger, rt.metrics);
const renderer = await openRenderer(config, rt.logger, rt.metrics);
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
const ops = await startOpsServer({
  port: config.port,
  registry: rt.metrics.registry,
  metrics: config.metrics,
  checks: [...rt.readiness, { name: 'chromium', check: () => renderer.ping() }],
});
rt.logger.info('render worker started', { pages: config.render.pages });
onShutdown(rt.logger, [() => worker.stop(), () => batchFinisher.stop(), () => renderer.close(), () => rt.close(), async () => ops.close()]);
