import { keepServingOnFaults, onShutdown, openParts } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { readConfig } from './config.ts';
import { dispatcherSettings, startWebhookDispatcher } from './webhook-dispatcher.ts';

const config = readConfig();
// What WebhookDispatcherDeps names: the log, deliveries, storage (links), the catalog and its secrets.
const rt = await openParts(config, 'webhook-dispatcher', ['log', 'deliveries', 'storage', 'catalog', 'catalogCommands', 'secrets']);
keepServingOnFaults(rt.logger, rt.metrics);
const dispatcher = await startWebhookDispatcher({ ...rt, settings: dispatcherSettings(config) });
const ops = await startOpsServer({ port: config.port, registry: rt.metrics.registry, metrics: config.metrics, checks: rt.readiness });
rt.logger.info('webhook dispatcher started');
onShutdown(rt.logger, [() => dispatcher.stop(), () => rt.close(), async () => ops.close()]);
