import { keepServingOnFaults, onShutdown, openRuntime } from '@pressroom/runtime';
import { startOpsServer } from '@pressroom/observability';
import { readConfig } from './config.ts';
import { dispatcherSettings, startWebhookDispatcher } from './webhook-dispatcher.ts';

const config = readConfig();
const rt = await openRuntime(config, 'webhook-dispatcher');
keepServingOnFaults(rt.logger, rt.metrics);
const dispatcher = await startWebhookDispatcher({ ...rt, settings: dispatcherSettings(config) });
const ops = await startOpsServer({ port: config.port, registry: rt.metrics.registry, checks: rt.readiness });
rt.logger.info('webhook dispatcher started');
onShutdown(rt.logger, [() => dispatcher.stop(), () => rt.close(), async () => ops.close()]);
