import { keepServingOnFaults, onShutdown, openParts } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { readConfig } from './config.ts';
import {
  createRenderRemoval,
  startAssetProjector,
  startCatalogProjector,
  startRetentionSweeper,
  startStatusProjector,
  startTemplateProjector,
} from '@pressroom/core';

const config = readConfig();
// The four views it builds from the log (and the end of each render's in-flight lease); it never
// waits on a status. Unless every plan keeps files forever it also sweeps our bucket: only then
// does it open storage (and check the bucket in its readiness).
const sweeps = Object.keys(config.retention.files).length > 0;
const views = ['log', 'view', 'templates', 'catalog', 'assetIndex', 'quotas'] as const;
const rt = await openParts(config, 'status-projector', sweeps ? [...views, 'storage' as const, 'payloadCopies' as const] : views, {
  statusWaits: false,
});
keepServingOnFaults(rt.logger, rt.metrics);
const projector = await startStatusProjector({ ...rt, rebuildOnStart: rt.viewIsVolatile, inFlight: rt.quotas.inFlight });
const templateProjector = await startTemplateProjector({ ...rt, rebuildOnStart: rt.viewIsVolatile });
const catalogProjector = await startCatalogProjector(rt);
const assetProjector = await startAssetProjector(rt);
// Retention: S3Proxy answers 501 to lifecycle rules (PutBucketLifecycleConfiguration), so the
// sweeper lists our bucket and removes what outlived its plan, recording each removal on the log.
const sweeper = sweeps
  ? startRetentionSweeper(createRenderRemoval({ ...rt, own: rt.storage.own, by: 'status-projector' }), {
      policy: config.retention.files,
      intervalMs: config.retention.sweepIntervalMs,
      logger: rt.logger,
    })
  : undefined;
const ops = await startOpsServer({ port: config.port, registry: rt.metrics.registry, metrics: config.metrics, checks: rt.readiness });
rt.logger.info('status projector started');
onShutdown(rt.logger, [
  () => projector.stop(),
  () => templateProjector.stop(),
  () => catalogProjector.stop(),
  () => assetProjector.stop(),
  async () => sweeper?.stop(),
  () => rt.close(),
  async () => ops.close(),
]);
