import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { runReadiness, type ReadinessCheck } from './health.ts';
import { metricsAnswer, startMetricsServer, type MetricsExposure } from './metrics-endpoint.ts';

/**
 * The small HTTP server of the apps that have no API of their own (render-worker,
 * status-projector, webhook-dispatcher): /healthz and /readyz, and /metrics unless it has a
 * port of its own (then started here too, and closed with this server); /metrics asks for the
 * metrics token when one is configured.
 */
export async function startOpsServer(opts: {
  port: number;
  checks: ReadinessCheck[];
  registry: Registry;
  metrics?: MetricsExposure;
}): Promise<Server> {
  const exposure = opts.metrics ?? { port: undefined, host: '0.0.0.0', token: undefined };
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/healthz') return send(res, 200, { status: 'ok' });
      if (path === '/readyz') {
        const r = await runReadiness(opts.checks);
        return send(res, r.ok ? 200 : 503, { status: r.ok ? 'ready' : 'unavailable', checks: r.checks });
      }
      if (path === '/metrics' && exposure.port === undefined) {
        const answer = await metricsAnswer(opts.registry, exposure.token, req.headers.authorization);
        res.writeHead(answer.status, answer.headers);
        return res.end(answer.body);
      }
      send(res, 404, { error: { code: 'NOT_FOUND', message: 'Not found.' } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(opts.port, resolve));
  if (exposure.port !== undefined) {
    const metricsServer = await startMetricsServer({ ...exposure, port: exposure.port, registry: opts.registry });
    server.on('close', () => metricsServer.close());
  }
  return server;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
