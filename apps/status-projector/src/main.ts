import { keepServingOnFaults, onShutdown, openRuntime } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { readConfig } from './config.ts';
import { startStatusProjector } from './status-projector.ts';
import { startTemplateProjector } from './template-projector.ts';
import { startCatalogProjector } from './catalog-projector.ts';
import { startAssetProjector } from './asset-projector.ts';

const config = readConfig();
const rt = await openRuntime(config, 'status-projector');
keepServingOnFaults(rt.logger, rt.metrics);
const projector = await startStatusProjector({ ...rt, rebuildOnStart: rt.viewIsVolatile });
const templateProjector = await startTemplateProjector({ ...rt, rebuildOnStart: rt.viewIsVolatile });
const catalogProjector = await startCatalogProjector(rt);
const assetProjector = await startAssetProjector(rt);
const ops = await startOpsServer({ port: config.port, registry: rt.metrics.registry, checks: rt.readiness });
rt.logger.info('status projector started');
onShutdown(rt.logger, [
  () => projector.stop(),
  () => templateProjector.stop(),
  () => catalogProjector.stop(),
  () => assetProjector.stop(),
  () => rt.close(),
  async () => ops.close(),
]);
