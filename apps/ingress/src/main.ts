import { keepServingOnFaults, onShutdown, openRuntime } from '@pressroom/runtime';
import { readConfig } from './config.ts';
import { closeServer, startIngressServer } from './server.ts';

const rt = await openRuntime(readConfig(), 'ingress');
keepServingOnFaults(rt.logger, rt.metrics);
const server = await startIngressServer(rt);
onShutdown(rt.logger, [() => closeServer(server), () => rt.close()]);
