import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { runReadiness, type ReadinessCheck } from './health.ts';

/**
 * The small HTTP server of the apps that have no API of their own (render-worker,
 * status-projector, webhook-dispatcher): /healthz, /readyz and /metrics, no key needed.
 */
export async function startOpsServer(opts: { port: number; checks: ReadinessCheck[]; registry: Registry }): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/healthz') return send(res, 200, { status: 'ok' });
      if (path === '/readyz') {
        const r = await runReadiness(opts.checks);
        return send(res, r.ok ? 200 : 503, { status: r.ok ? 'ready' : 'unavailable', checks: r.checks });
      }
      if (path === '/metrics') {
        res.writeHead(200, { 'content-type': opts.registry.contentType });
        return res.end(await opts.registry.metrics());
      }
      send(res, 404, { error: { code: 'NOT_FOUND', message: 'Not found.' } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(opts.port, resolve));
  return server;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
