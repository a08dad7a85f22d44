import { createServer, type Server } from 'node:http';
import type { Runtime } from '@pressroom/runtime';
import { startMetricsServer } from '@pressroom/observability';
import { buildIngressApp } from './app.ts';
import { bootstrapDefaultTenant, type PayloadHandoff, type RenderHeadStart } from '@pressroom/core';

/**
 * Starts the public API on the configured port; prints a development key (on stderr) on first start.
 * `payloadHandoff` and `headStart`: shared with the render worker of the same process (standalone),
 * see PayloadHandoff and RenderHeadStart.
 */
export async function startIngressServer(
  rt: Runtime,
  opts: { payloadHandoff?: PayloadHandoff; headStart?: RenderHeadStart } = {},
): Promise<Server> {
  const { config } = rt;
  const boot = await untilDone(rt, () =>
    bootstrapDefaultTenant(rt, { apiKey: config.apiKey, createDevelopmentKey: config.profile === 'embedded' }),
  );
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
    ...(opts.payloadHandoff ? { payloadHandoff: opts.payloadHandoff } : {}),
    ...(opts.headStart ? { headStart: opts.headStart } : {}),
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
      plans: config.plans,
      admission: config.admission,
      payloads: config.payloads,
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

/**
 * Runs a start-up step until it succeeds, with capped back-off. The log may not take reads or
 * writes yet — topics created a moment ago whose partitions have no leader ("not the leader for
 * that topic-partition"), a broker still starting — and a step that failed once must not leave
 * a process that runs without ever listening (keepServingOnFaults keeps it alive).
 */
async function untilDone<T>(rt: Runtime, step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const delayMs = Math.min(5_000, 250 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      rt.logger.warn('start-up step failed; trying again', { attempt, delayMs: Math.round(delayMs), err });
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}
