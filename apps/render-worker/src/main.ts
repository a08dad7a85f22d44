import { onShutdown, openRenderer, openRuntime } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { readConfig } from './config.ts';
import { startRenderWorker } from './render-worker.ts';

const config = readConfig();
const rt = await openRuntime(config, 'render-worker');
const renderer = await openRenderer(config, rt.logger);
const worker = await startRenderWorker({
  ...rt,
  renderer,
  assetsFor: (tenantId) => rt.assets.sourceFor(tenantId),
  concurrency: config.render.pages,
  renderTimeoutMs: config.render.timeoutMs,
  acceptClockSkewMs: config.acceptClockSkewMs,
});
const ops = await startOpsServer({
  port: config.port,
  registry: rt.metrics.registry,
  checks: [...rt.readiness, { name: 'chromium', check: () => renderer.ping() }],
});
rt.logger.info('render worker started', { pages: config.render.pages });
onShutdown(rt.logger, [() => worker.stop(), () => renderer.close(), () => rt.close(), async () => ops.close()]);
