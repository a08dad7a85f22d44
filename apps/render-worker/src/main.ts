import { keepServingOnFaults, onShutdown, openRenderer, openRuntime } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { DEFAULT_RENDER_RETRY_POLICY } from '@pressroom/domain';
import { readConfig } from './config.ts';
import { startRenderWorker } from './render-worker.ts';

const config = readConfig();
const rt = await openRuntime(config, 'render-worker');
keepServingOnFaults(rt.logger, rt.metrics);
const renderer = await openRenderer(config, rt.logger);
const worker = await startRenderWorker({
  ...rt,
  renderer,
  assetsFor: (tenantId) => rt.assets.sourceFor(tenantId),
  concurrency: config.render.pages,
  renderTimeoutMs: config.render.timeoutMs,
  acceptClockSkewMs: config.acceptClockSkewMs,
  crashRetry: { ...DEFAULT_RENDER_RETRY_POLICY, crashRetries: config.render.crashRetries },
  view: rt.view,
});
const ops = await startOpsServer({
  port: config.port,
  registry: rt.metrics.registry,
  checks: [...rt.readiness, { name: 'chromium', check: () => renderer.ping() }],
});
rt.logger.info('render worker started', { pages: config.render.pages });
onShutdown(rt.logger, [() => worker.stop(), () => renderer.close(), () => rt.close(), async () => ops.close()]);
