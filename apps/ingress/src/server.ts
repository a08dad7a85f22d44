import { createServer, type Server } from 'node:http';
import type { Runtime } from '@pressroom/runtime';
import { startMetricsServer } from '@pressroom/observability';
import { buildIngressApp } from './app.ts';
import { bootstrapDefaultTenant } from '@pressroom/core';

/** Starts the public API on the configured port; prints a development key (on stderr) on first start. */
export async function startIngressServer(rt: Runtime): Promise<Server> {
  const { config } = rt;
  const boot = await bootstrapDefaultTenant(rt, {
    apiKey: config.apiKey,
    createDevelopmentKey: config.profile === 'embedded',
  });
  if (boot.developmentKey) {
    // stdout is the JSON log stream: the key goes to the terminal on stderr, and the log gets a
    // structured line saying so (without the key).
    rt.logger.info('development API key created for the default tenant; printed once on stderr', { tenantId: 'default' });
    process.stderr.write(
      `\n  Pressroom development API key (shown once, stored hashed):\n\n    ${boot.developmentKey}\n\n` +
        `  Try: curl -H "Authorization: Bearer ${boot.developmentKey}" ${config.publicUrl}/v1/templates\n\n`,
    );
  }
  const app = buildIngressApp({
    ...rt,
    settings: {
      publicUrl: config.publicUrl,
      syncTimeoutMs: config.syncTimeoutMs,
      maxBodyBytes: config.maxBodyBytes,
      maxAssetBytes: config.maxAssetBytes,
      limits: config.limits,
      validationTimeoutMs: config.validationTimeoutMs,
      allowPrivateWebhooks: config.allowPrivateWebhooks,
      allowPrivateS3Endpoints: config.allowPrivateS3Endpoints,
      adminToken: config.adminToken,
      acceptTimeoutMs: config.kafkaAppendTimeoutMs,
      idempotencyTtlMs: config.idempotencyTtlMs,
      webhooks: {
        allowHttp: config.webhooks.allowHttp,
        allowedPorts: config.webhooks.allowedPorts,
        secretOverlapMs: config.webhooks.secretOverlapMs,
      },
      metrics: config.metrics,
    },
  });
  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  // A sync call may wait 30 s for its render: keep the socket open a little longer than that.
  server.requestTimeout = config.syncTimeoutMs + 30_000;
  server.headersTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(config.port, resolve));
  if (config.metrics.port !== undefined) {
    const metricsServer = await startMetricsServer({ ...config.metrics, port: config.metrics.port, registry: rt.metrics.registry });
    server.on('close', () => metricsServer.close());
  }
  rt.logger.info('ingress listening', { port: config.port, profile: config.profile, publicUrl: config.publicUrl });
  return server;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
