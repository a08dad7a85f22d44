import { keepServingOnFaults, onShutdown, openRuntime } from '@pressroom/runtime';
import { closeServer, startIngressServer } from '@pressroom/ingress';
import { startRenderSide } from '@pressroom/render-worker';
import { startAssetProjector, startCatalogProjector, startStatusProjector, startTemplateProjector } from '@pressroom/status-projector';
import { dispatcherSettings, startWebhookDispatcher } from '@pressroom/webhook-dispatcher';
import { createPayloadHandoff, createRenderHeadStartLink, createRenderRemoval, startRetentionSweeper } from '@pressroom/core';
import { readConfig } from './config.ts';

/** `{ [key]: value }` when value is defined, `{}` otherwise (exactOptionalPropertyTypes). */
const opt = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

// All four apps in one process. This is the composition root, the one app that imports the
// others: each still talks to the rest only through the log and the view.
const config = readConfig();
// How long each step of the start took (one log line when listening: where a slow start goes).
const phases: Record<string, number> = {};
let phaseStart = performance.now();
const phase = (name: string) => {
  const now = performance.now();
  phases[name] = Math.round(now - phaseStart);
  phaseStart = now;
};
const rt = await openRuntime(config, 'standalone');
phase('runtimeMs');
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
phase('viewsMs');
const catalogProjector = await startCatalogProjector(rt);
const assetProjector = await startAssetProjector(rt);
phase('catalogAndAssetsMs');
// The ingress and the render worker share this process: a payload the ingress stored is handed
// to the worker in memory (checked by key, hash and size) instead of being read back from disk.
const payloadHandoff = createPayloadHandoff();
// And each sync request is offered to the worker as its append starts, so its render begins
// beside the append instead of after the log delivers it back (see RenderHeadStart).
const headStart = createRenderHeadStartLink();
// Chromium (its host process, its launch) starts beside the ingress, not before it: a request
// accepted meanwhile waits on the log for the worker like any other, and /readyz says "not
// ready" until Chromium answers. A render side that cannot start ends the process, as before.
const renderSideStarted = performance.now();
const renderSide = startRenderSide(config, { ...rt, payloadHandoff, headStart });
let renderSideUp: Awaited<typeof renderSide> | undefined;
renderSide.then(
  (side) => {
    renderSideUp = side;
    rt.logger.info('render side started', { ms: Math.round(performance.now() - renderSideStarted) });
  },
  (err: unknown) => {
    rt.logger.error('the render side could not start; exiting', { err });
    process.exit(1);
  },
);
// Retention: our own storage (local disk here) is swept for renders older than their plan keeps.
const sweeper = startRetentionSweeper(createRenderRemoval({ ...rt, own: rt.storage.own, by: 'standalone' }), {
  policy: config.retention.files,
  intervalMs: config.retention.sweepIntervalMs,
  logger: rt.logger,
});
const chromiumReady = async () => {
  if (!renderSideUp) throw new Error('Chromium is starting');
  await renderSideUp.renderer.ping();
};
const server = await startIngressServer(
  { ...rt, readiness: [...rt.readiness, { name: 'chromium', check: chromiumReady }] },
  { payloadHandoff, headStart },
);
phase('ingressMs');
const cpu = process.cpuUsage();
// CPU time too: on a loaded machine the wall time says more about the neighbours than the start.
rt.logger.info('started', {
  ...phases,
  sinceProcessStartMs: Math.round(performance.now()),
  cpuMs: Math.round((cpu.user + cpu.system) / 1000),
});
// The dispatcher after listening, and after the webhook deliveries are restored (their snapshot and
// the log after it; the whole log without one: ~1 min at 1,000,000 renders), which would otherwise
// share the event loop with the start. A render finished meanwhile waits on the log for it, as any
// webhook does for a busy dispatcher. A restore that replayed a long log is snapshotted at once.
let stopping = false;
let dispatcherUp: Awaited<ReturnType<typeof startWebhookDispatcher>> | undefined;
const dispatcher = (async () => {
  await rt.deliveries
    .warmUp?.()
    .then(() => snapshots?.saveAfterLongReplay())
    .catch((err: unknown) =>
      rt.logger.warn('webhook deliveries not restored yet; the dispatcher restores them at its first claim', { err }),
    );
  // A shutdown during a long restore does not wait for it, nor start the dispatcher after it.
  return stopping ? undefined : startWebhookDispatcher({ ...rt, settings: dispatcherSettings(config) });
})();
dispatcher.then(
  (up) => {
    dispatcherUp = up;
    if (stopping) void up?.stop(); // started while the shutdown began
  },
  (err: unknown) => {
    rt.logger.error('the webhook dispatcher could not start; exiting', { err });
    process.exit(1);
  },
);
// The Idempotency-Keys are restored on first use (their snapshot and the log after it; the whole
// log without one); start that now, in the background, so the first keyed request does not wait
// for it (a claim before it is done still waits: never a key forgotten). A restore that replayed
// a long log is snapshotted at once.
void rt.idempotency
  .warmUp?.()
  .then(() => snapshots?.saveAfterLongReplay())
  .catch((err: unknown) => rt.logger.warn('Idempotency-Keys not rebuilt yet; the first keyed request rebuilds them', { err }));
onShutdown(rt.logger, [
  () => closeServer(server),
  async () => (await renderSide).worker.stop(),
  async () => (await renderSide).batchFinisher.stop(),
  () => sweeper.stop(),
  async () => {
    stopping = true;
    await dispatcherUp?.stop();
  },
  () => projector.stop(),
  () => templateProjector.stop(),
  () => catalogProjector.stop(),
  () => assetProjector.stop(),
  // After the projectors: their positions are committed, so the snapshot covers everything they applied.
  async () => snapshots?.close(),
  async () => (await renderSide).renderer.close(),
  () => rt.close(),
]);
