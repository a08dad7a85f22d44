import type { Context, Next } from 'koa';
import type { Logger } from '@pressroom/core';
import type { Metrics } from '@pressroom/observability';
import type { AuthState } from './auth.ts';

/** Probes and scrapes: logged at debug, so an orchestrator polling them does not fill the log. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One access line per request ("http request": method, route template, status, durationMs,
 * requestId, tenantId and the API key's id when known), and the request latency metric. Never the body, the
 * query or a header: they hold tenant data and credentials.
 */
export function accessLog(deps: { logger: Logger; metrics: Metrics }) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = performance.now();
    const end = deps.metrics.httpRequestSeconds.startTimer({ method: ctx.method });
    try {
      await next();
    } finally {
      const route = String(ctx._matchedRoute ?? 'unmatched');
      end({ route, status: String(ctx.status) });
      const requestId = ctx.response.get('X-Request-Id') || (ctx.params as Record<string, string> | undefined)?.requestId;
      const tenantId = (ctx.state as Partial<AuthState>).tenant?.tenantId;
      const keyId = (ctx.state as Partial<AuthState>).apiKey?.keyId;
      const fields = {
        method: ctx.method,
        route,
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...(requestId ? { requestId } : {}),
        ...(tenantId ? { tenantId } : {}),
        ...(keyId ? { keyId } : {}),
      };
      if (QUIET_PATHS.has(ctx.path)) deps.logger.debug('http request', fields);
      else deps.logger.info('http request', fields);
    }
  };
}
