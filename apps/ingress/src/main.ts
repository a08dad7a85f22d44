import { keepServingOnFaults, onShutdown, openRuntime } from '@pressroom/runtime';
import { readConfig } from './config.ts';
import { closeServer, startIngressServer } from './server.ts';

/**
 * The links this ingress hands out (sync answers, status reads) are audited in batches gathered
 * for 250 ms: at 15 sync renders/s one append, and one fetch of the webhook dispatcher, in four
 * (issue 13). The dispatcher's own links (webhook bodies) are appended at once.
 */
const LINK_GATHER_MS = 250;

const rt = await openRuntime(readConfig(), 'ingress', { linkGatherMs: LINK_GATHER_MS });
keepServingOnFaults(rt.logger, rt.metrics);
const server = await startIngressServer(rt);
onShutdown(rt.logger, [() => closeServer(server), () => rt.close()]);
