import { keepServingOnFaults, onShutdown, openParts } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { readConfig } from './config.ts';
import { startAssetProjector, startCatalogProjector, startStatusProjector, startTemplateProjector } from '@pressroom/core';

const config = readConfig();
// The four views it builds from the log (and the end of each render's in-flight lease); it never waits on a status.
const rt = await openParts(config, 'status-projector', ['log', 'view', 'templates', 'catalog', 'assetIndex', 'quotas'], {
  statusWaits: false,
});
keepServingOnFaults(rt.logger, rt.metrics);
const projector = await startStatusProjector({ ...rt, rebuildOnStart: rt.viewIsVolatile, inFlight: rt.quotas.inFlight });
const templateProjector = await startTemplateProjector({ ...rt, rebuildOnStart: rt.viewIsVolatile });
const catalogProjector = await startCatalogProjector(rt);
const assetProjector = await startAssetProjector(rt);
const ops = await startOpsServer({ port: config.port, registry: rt.metrics.registry, metrics: config.metrics, checks: rt.readiness });
rt.logger.info('status projector started');
onShutdown(rt.logger, [
  () => projector.stop(),
  () => templateProjector.stop(),
  () => catalogProjector.stop(),
  () => assetProjector.stop(),
  () => rt.close(),
  async () => ops.close(),
]);
