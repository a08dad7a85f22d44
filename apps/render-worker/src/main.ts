import { keepServingOnFaults, onShutdown, openParts } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { readConfig } from './config.ts';
import { startRenderSide } from './render-side.ts';

const config = readConfig();
// What RenderWorkerDeps names: the log, the status view (read, never waited on), storage, assets, the render cache index.
const rt = await openParts(config, 'render-worker', ['log', 'view', 'storage', 'assets', 'renderCache', 'payloadCopies'], {
  statusWaits: false,
});
keepServingOnFaults(rt.logger, rt.metrics);
const { renderer, worker, batchFinisher } = await startRenderSide(config, rt);
const ops = await startOpsServer({
  port: config.port,
  registry: rt.metrics.registry,
  metrics: config.metrics,
  checks: [...rt.readiness, { name: 'chromium', check: () => renderer.ping() }],
});
rt.logger.info('render worker started', { pages: config.render.pages });
onShutdown(rt.logger, [() => worker.stop(), () => batchFinisher.stop(), () => renderer.close(), () => rt.close(), async () => ops.close()]);
