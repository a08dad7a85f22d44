import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { monitorEventLoopDelay } from './event-loop-delay.ts';
import { ProcessTreeUsage } from './process-tree.ts';
import { withTimeout } from './health.ts';

/** One consumer group's distance from the end of one partition (records not yet handled). */
export interface ConsumerLag {
  group: string;
  topic: string;
  partition: number;
  lag: number;
}

/** What the renderer supervisor tells about its pool of warm pages and its Chromium. */
export interface RendererStats {
  /** The renderer host process (Chromium runs under it); undefined while it restarts. */
  hostPid: number | undefined;
  /** Warm pages the pool holds (PRESSROOM_RENDER_PAGES). */
  pages: number;
  /** Pages rendering now. */
  busyPages: number;
  /** Times the pool's host (with its Chromium) was started again after it died or wedged. */
  hostRestarts: number;
  /** Pages the pool replaced: recycled after PRESSROOM_RENDER_RECYCLE_AFTER jobs, spoiled by a job, or a reset that failed. */
  pagesReplaced?: number;
}

/** A scrape never waits longer than this for a source (the Kafka admin API when Kafka is down). */
const SOURCE_TIMEOUT_MS = 2_000;

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The metric catalogue: one registry per process, shared by every app it runs. Names follow
 * the Prometheus conventions (base units in the name, `_total` for counters); labels are
 * bounded sets (lane, outcome, failure code, route template, consumer group, topic, partition),
 * never a requestId or tenant. The README's Operations section lists them.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool check metrics refuses them); the per-type gauges
  // without the suffix (nodejs_active_handles{type}, ...) carry the same numbers.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  let consumerLagSource: (() => Promise<ConsumerLag[]>) | undefined;
  let rendererSource: (() => RendererStats) | undefined;
  const chromium = new ProcessTreeUsage();

  monitorEventLoopDelay(registry);
  const metrics = {
    registry,
    httpRequestSeconds: new Histogram({
      name: 'pressroom_http_request_duration_seconds',
      help: 'HTTP request latency by route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    renderSeconds: new Histogram({
      name: 'pressroom_render_duration_seconds',
      help: 'Render latency (render start to outcome on the log) by output kind and outcome.',
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
    renderQueueWaitSeconds: new Histogram({
      name: 'pressroom_render_queue_wait_seconds',
      help: 'Time from a render request written to the log (accepted) to its render start, by lane.',
      labelNames: ['lane'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    renderBacklog: new Gauge({
      name: 'pressroom_render_backlog_requests',
      help: 'Render requests a worker has read from the log and that wait for a render slot, by lane.',
      labelNames: ['lane'] as const,
      registers: [registry],
    }),
    quotaRefusalsTotal: new Counter({
      name: 'pressroom_quota_refusals_total',
      help: 'Requests answered 429, by rule: rate (RATE_LIMITED), concurrency (CONCURRENCY_LIMITED), backlog (BACKLOG_FULL).',
      labelNames: ['rule'] as const,
      registers: [registry],
    }),
    quotaStoreFailuresTotal: new Counter({
      name: 'pressroom_quota_store_failures_total',
      help: 'Quota checks the quota store (Redis) could not answer: the request was let through (fail-open), by check (rate, concurrency).',
      labelNames: ['check'] as const,
      registers: [registry],
    }),
    rendersTotal: new Counter({
      name: 'pressroom_renders_total',
      help: 'Renders by outcome and failure code.',
      labelNames: ['outcome', 'code'] as const,
      registers: [registry],
    }),
    renderHeadStartsTotal: new Counter({
      name: 'pressroom_render_head_starts_total',
      help: 'Sync requests of this process offered to its render worker before their append (standalone): taken (rendered from the offer), declined (no free slot, or not a browser render), dropped (never delivered, or delivered different).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    renderCacheTotal: new Counter({
      name: 'pressroom_render_cache_total',
      help: 'Render cache lookups of the renders whose plan has the cache: hit (served as a copy), miss (rendered), stale (indexed file gone: rendered).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    syncFallbacksTotal: new Counter({
      name: 'pressroom_sync_fallbacks_total',
      help: 'Sync requests that outlived the wait and were answered 202.',
      registers: [registry],
    }),
    webhookAttemptsTotal: new Counter({
      name: 'pressroom_webhook_attempts_total',
      help: 'Webhook POSTs made, by what the attempt decided: delivered, retrying (another attempt follows) or failed (the last one).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookDeliveriesTotal: new Counter({
      name: 'pressroom_webhook_deliveries_total',
      help: 'Webhook deliveries finished, by final outcome: delivered, or failed after the last attempt (or a URL gone earlier).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookAttemptSeconds: new Histogram({
      name: 'pressroom_webhook_attempt_duration_seconds',
      help: 'Duration of one webhook POST, by the attempt outcome.',
      labelNames: ['outcome'] as const,
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    webhookDeliverySeconds: new Histogram({
      name: 'pressroom_webhook_delivery_latency_seconds',
      help: 'Time from the render outcome to the webhook delivery finishing (retries included), by final outcome.',
      labelNames: ['outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
      registers: [registry],
    }),
    storageSeconds: new Histogram({
      name: 'pressroom_storage_operation_duration_seconds',
      help: "Latency of the service's own object storage (S3 or local files), by operation and outcome.",
      labelNames: ['operation', 'outcome'] as const,
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    linkEventsDroppedTotal: new Counter({
      name: 'pressroom_link_events_dropped_total',
      help: 'LinkIssued audit events lost (the links were handed out anyway), by reason: buffer_full (log slower than links) or append_failed.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    processFaultsTotal: new Counter({
      name: 'pressroom_process_faults_total',
      help: 'Errors no handler caught (uncaught exceptions, unhandled rejections), logged and survived.',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    /** Reports the consumer lag of the groups this process consumes with, read at each scrape. */
    observeConsumerLag(source: () => Promise<ConsumerLag[]>): void {
      consumerLagSource = source;
    },
    /** Reports the page pool and Chromium of this process' renderer, read at each scrape. */
    observeRenderer(source: () => RendererStats): void {
      rendererSource = source;
    },
  };

  new Gauge({
    name: 'pressroom_consumer_lag_records',
    help: 'Records of a partition not yet handled by a consumer group (end offset minus committed offset). Every member of a group reports it: aggregate with max.',
    labelNames: ['group', 'topic', 'partition'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (!consumerLagSource) return;
      const lags = await withTimeout(consumerLagSource(), SOURCE_TIMEOUT_MS).catch(() => undefined);
      for (const l of lags ?? []) this.set({ group: l.group, topic: l.topic, partition: String(l.partition) }, l.lag);
    },
  });
  new Gauge({
    name: 'pressroom_page_pool_size_pages',
    help: 'Warm Chromium pages of the renderer pool.',
    registers: [registry],
    collect() {
      this.reset();
      if (rendererSource) this.set(rendererSource().pages);
    },
  });
  new Gauge({
    name: 'pressroom_page_pool_busy_pages',
    help: 'Pages of the renderer pool rendering now.',
    registers: [registry],
    collect() {
      this.reset();
      if (rendererSource) this.set(rendererSource().busyPages);
    },
  });
  new Counter({
    name: 'pressroom_page_pool_restarts_total',
    help: 'Times the renderer pool (its host process and Chromium) was started again after it died or wedged.',
    registers: [registry],
    collect() {
      this.reset();
      if (rendererSource) this.inc(rendererSource().hostRestarts);
    },
  });
  new Counter({
    name: 'pressroom_page_pool_replacements_total',
    help: 'Pages of the renderer pool replaced by a fresh one: recycled after PRESSROOM_RENDER_RECYCLE_AFTER jobs, spoiled by a job, or a reset that failed.',
    registers: [registry],
    collect() {
      this.reset();
      if (rendererSource) this.inc(rendererSource().pagesReplaced ?? 0);
    },
  });
  new Counter({
    name: 'pressroom_chromium_cpu_seconds_total',
    help: "CPU time (user and system) used by the renderer's Chromium processes (Linux /proc).",
    registers: [registry],
    async collect() {
      const usage = await chromium.sample(rendererSource?.().hostPid);
      this.reset();
      this.inc(usage.cpuSeconds);
    },
  });
  new Gauge({
    name: 'pressroom_chromium_resident_memory_bytes',
    help: "Resident memory of the renderer's Chromium processes, summed (Linux /proc; shared pages counted once per process).",
    registers: [registry],
    async collect() {
      this.set((await chromium.sample(rendererSource?.().hostPid)).residentBytes);
    },
  });
  new Gauge({
    name: 'pressroom_chromium_processes',
    help: "Chromium processes under the renderer's host (browser, renderers, GPU, utility).",
    registers: [registry],
    async collect() {
      this.set((await chromium.sample(rendererSource?.().hostPid)).processes);
    },
  });
  return metrics;
}
export type Metrics = ReturnType<typeof createMetrics>;
