import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** Where /metrics is served and who may read it (PRESSROOM_METRICS_PORT, _HOST, _TOKEN). */
export interface MetricsExposure {
  /** A listener of its own for /metrics; undefined: /metrics is served on the app's own port. */
  port: number | undefined;
  /** Address that listener binds. */
  host: string;
  /** When set, /metrics answers 401 unless the request carries `Authorization: Bearer <token>`. */
  token: string | undefined;
}

export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answer to GET /metrics: the registry's text, or 401 when a token is configured and not given. */
export async function metricsAnswer(
  registry: Registry,
  token: string | undefined,
  authorization: string | undefined,
): Promise<MetricsAnswer> {
  if (token !== undefined && !bearerMatches(authorization, token)) {
    return {
      status: 401,
      headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="metrics"' },
      body: JSON.stringify({ error: { code: 'UNAUTHENTICATED', message: 'Send the metrics token as "Authorization: Bearer <token>".' } }),
    };
  }
  return { status: 200, headers: { 'content-type': registry.contentType }, body: await registry.metrics() };
}

function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (given === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The separate metrics listener (PRESSROOM_METRICS_PORT): GET /metrics only. */
export async function startMetricsServer(opts: {
  port: number;
  host: string;
  token: string | undefined;
  registry: Registry;
}): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      const answer =
        path === '/metrics'
          ? await metricsAnswer(opts.registry, opts.token, req.headers.authorization)
          : {
              status: 404,
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ error: { code: 'NOT_FOUND', message: 'Only /metrics is served here.' } }),
            };
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
