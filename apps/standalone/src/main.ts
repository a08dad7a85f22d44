import { keepServingOnFaults, onShutdown, openRuntime } from '@pressroom/runtime';
import { closeServer, startIngressServer } from '@pressroom/ingress';
import { startRenderSide } from '@pressroom/render-worker';
import { startAssetProjector, startCatalogProjector, startStatusProjector, startTemplateProjector } from '@pressroom/status-projector';
import { dispatcherSettings, startWebhookDispatcher } from '@pressroom/webhook-dispatcher';
import { createRenderRemoval, startRetentionSweeper } from '@pressroom/core';
import { readConfig } from './config.ts';

/** `{ [key]: value }` when value is defined, `{}` otherwise (exactOptionalPropertyTypes). */
const opt = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

// All four apps in one process. This is the composition root, the one app that imports the
// others: each still talks to the rest only through the log and the view.
const config = readConfig();
const rt = await openRuntime(config, 'standalone');
keepServingOnFaults(rt.logger, rt.metrics);
// The projector first: with a volatile view it rebuilds from the log before anyone asks.
// With a snapshot, only the log after it is replayed (start-up does not grow with history).
const snapshots = rt.snapshots;
const restoreOf = (name: string) => {
  const snapshotter = snapshots?.get(name);
  return snapshotter && (() => snapshotter.restore());
};
const projector = await startStatusProjector({
  ...rt,
  rebuildOnStart: rt.viewIsVolatile,
  inFlight: rt.quotas.inFlight,
  ...opt('restore', restoreOf('status')),
});
const templateProjector = await startTemplateProjector({
  ...rt,
  rebuildOnStart: rt.viewIsVolatile,
  ...opt('restore', restoreOf('templates')),
});
snapshots?.every(config.snapshotIntervalMs);
const catalogProjector = await startCatalogProjector(rt);
const assetProjector = await startAssetProjector(rt);
const { renderer, worker, batchFinisher } = await startRenderSide(config, rt);
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
  // After the projectors: their positions are committed, so the snapshot covers everything they applied.
  async () => snapshots?.close(),
  () => renderer.close(),
  () => rt.close(),
]);
