import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { monitorEventLoopDelay } from './event-loop-delay.ts';

/** The metric catalogue: one registry per process, shared by every app it runs. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    eventLoopDelay: monitorEventLoopDelay(registry),
    httpRequestSeconds: new Histogram({
      name: 'pressroom_http_request_duration_seconds',
      help: 'HTTP request latency by route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    renderSeconds: new Histogram({
      name: 'pressroom_render_duration_seconds',
      help: 'Render latency by output kind and outcome.',
      labelNames: ['output', 'outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    }),
    renderWaitSeconds: new Histogram({
      name: 'pressroom_render_wait_seconds',
      help: 'Time a render request read by a worker waited for its turn (a free slot, its tenant under its cap), by lane.',
      labelNames: ['lane'] as const,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    rendersTotal: new Counter({
      name: 'pressroom_renders_total',
      help: 'Renders by outcome and failure code.',
      labelNames: ['outcome', 'code'] as const,
      registers: [registry],
    }),
    syncFallbacksTotal: new Counter({
      name: 'pressroom_sync_fallbacks_total',
      help: 'Sync requests that outlived the wait and were answered 202.',
      registers: [registry],
    }),
    webhookDeliveriesTotal: new Counter({
      name: 'pressroom_webhook_deliveries_total',
      help: 'Webhook deliveries by outcome.',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    processFaultsTotal: new Counter({
      name: 'pressroom_process_faults_total',
      help: 'Errors no handler caught (uncaught exceptions, unhandled rejections), logged and survived.',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
