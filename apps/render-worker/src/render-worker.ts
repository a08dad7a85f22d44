import { hostname } from 'node:os';
import { admitsRender, artifactKey, contentTypeFor } from '@pressroom/domain';
import {
  RenderFailure,
  type ArtifactStorage,
  type EventFactory,
  type EventLog,
  type FailureCodeValue,
  type LogRecord,
  type Logger,
  type Subscription,
  type TopicNames,
  type Renderer,
  type RenderJob,
  type ConsumeContext,
  type AssetSource,
} from '@pressroom/core';
import type { RenderRequested } from '@pressroom/schemas';
import type { Metrics } from '@pressroom/observability';

export interface RenderWorkerDeps {
  log: EventLog;
  renderer: Renderer;
  storage: ArtifactStorage;
  topics: TopicNames;
  event: EventFactory;
  logger: Logger;
  metrics: Metrics;
  /** Renders at once per lane; the renderer's page pool bounds the total. */
  concurrency: number;
  renderTimeoutMs: number;
  group?: string;
  workerId?: string;
  /** The uploaded assets (fonts, images) of a tenant, for its renders. Default: none (every asset 404s). */
  assetsFor?: (tenantId: string) => AssetSource;
  /** Clock difference tolerated between the ingress and the log when judging `acceptBy` (see admitsRender). */
  acceptClockSkewMs?: number;
}

const DEFAULT_ACCEPT_CLOCK_SKEW_MS = 2_000;

/** How often a long render tells the group it is alive (well under any session timeout). */
const HEARTBEAT_EVERY_MS = 2000;

/**
 * Consumes RenderRequested from both lanes, renders, stores the file under a key derived
 * from the request (a retry overwrites the same object), and appends RenderSucceeded or
 * RenderFailed. The record is committed only after the outcome is on the log, so a worker
 * killed mid-render leaves the request to another member.
 */
export async function startRenderWorker(deps: RenderWorkerDeps): Promise<Subscription> {
  const group = deps.group ?? `${deps.topics.prefix}.renderer`;
  const worker = deps.workerId ?? `${hostname()}:${process.pid}`;
  const handle = (record: LogRecord, ctx: ConsumeContext) => handleRecord(deps, worker, record, ctx);
  // Two lanes, two subscriptions: a flood of async work never sits in front of a sync caller.
  const sync = await deps.log.consume({
    group: `${group}.sync`,
    topics: [deps.topics.requestedSync],
    concurrency: deps.concurrency,
    handle,
  });
  const async = await deps.log.consume({
    group: `${group}.async`,
    topics: [deps.topics.requestedAsync],
    concurrency: deps.concurrency,
    handle,
  });
  return {
    async stop() {
      await Promise.all([sync.stop(), async.stop()]);
    },
  };
}

async function handleRecord(deps: RenderWorkerDeps, worker: string, record: LogRecord, ctx: ConsumeContext): Promise<void> {
  if (record.event.type !== 'RenderRequested') return;
  const requested = record.event;
  const logger = deps.logger.child({ requestId: requested.requestId, tenantId: requested.tenantId });
  if (!admitsRender(requested.data, record.writtenAt, deps.acceptClockSkewMs ?? DEFAULT_ACCEPT_CLOCK_SKEW_MS)) {
    // Written after the ingress answered 503: the caller was told "not taken". Withdrawn, on the
    // log, so the status view and the deliveries know it too; a redelivery appends it again (harmless).
    const { mode, webhook } = requested.data;
    const withdrawn = deps.event(
      'RenderWithdrawn',
      { requestId: requested.requestId, tenantId: requested.tenantId },
      { mode, ...(webhook ? { webhook } : {}), reason: 'WRITTEN_AFTER_DEADLINE', by: worker },
    );
    await deps.log.append(deps.topics.completed, [withdrawn]);
    logger.warn('request written after the ingress refused it; withdrawn unrendered', {
      acceptBy: requested.data.acceptBy,
      writtenAt: new Date(record.writtenAt ?? 0).toISOString(),
    });
    return;
  }
  const started = performance.now();
  logger.info('render started', { lane: requested.data.mode, output: requested.data.output, worker });
  const beat = setInterval(() => void ctx.heartbeat().catch(() => {}), HEARTBEAT_EVERY_MS);
  try {
    const outcome = await renderAndStore(deps, requested);
    const executionMs = Math.round(performance.now() - started);
    const ids = { requestId: requested.requestId, tenantId: requested.tenantId };
    const delivery = { mode: requested.data.mode, ...(requested.data.webhook ? { webhook: requested.data.webhook } : {}) };
    const completed =
      'artifact' in outcome
        ? deps.event('RenderSucceeded', ids, { ...delivery, artifact: outcome.artifact, executionMs, worker })
        : deps.event('RenderFailed', ids, { ...delivery, error: outcome.error, executionMs, worker });
    // If this append fails, the handler rejects and the request is rendered again: at-least-once.
    await deps.log.append(deps.topics.completed, [completed]);
    const result = completed.type === 'RenderSucceeded' ? 'success' : 'failure';
    deps.metrics.renderSeconds.observe({ output: requested.data.output, outcome: result }, executionMs / 1000);
    deps.metrics.rendersTotal.inc({ outcome: result, code: 'error' in outcome ? outcome.error.code : '' });
    logger.info('render finished', { outcome: result, executionMs, ...('error' in outcome ? { code: outcome.error.code } : {}) });
  } finally {
    clearInterval(beat);
  }
}

type Outcome =
  | { artifact: { target: RenderRequested['data']['storage']; key: string; contentType: string; bytes: number } }
  | { error: { code: FailureCodeValue; message: string } };

async function renderAndStore(deps: RenderWorkerDeps, requested: RenderRequested): Promise<Outcome> {
  const { data } = requested;
  let bytes: Uint8Array;
  try {
    const output = await deps.renderer.render(renderJobFor(requested, deps));
    bytes = output.bytes;
  } catch (err) {
    if (err instanceof RenderFailure) return { error: { code: err.code, message: err.message } };
    deps.logger.error('renderer crashed', { requestId: requested.requestId, err });
    return { error: { code: 'RENDER_ERROR', message: 'The renderer failed unexpectedly.' } };
  }
  const key = artifactKey({ tenantId: requested.tenantId, requestId: requested.requestId, output: data.output, target: data.storage });
  const contentType = contentTypeFor(data.output);
  try {
    await deps.storage.put(requested.tenantId, data.storage, key, bytes, contentType);
  } catch (err) {
    deps.logger.warn('storing the file failed', { requestId: requested.requestId, err });
    return { error: { code: 'STORAGE_ERROR', message: `The file could not be stored: ${(err as Error).message}` } };
  }
  return { artifact: { target: data.storage, key, contentType, bytes: bytes.byteLength } };
}

/**
 * The job for a request: its source (the template's header and footer included), output, page
 * setup and readiness signal as requested, this tenant's assets, and the worker's time limit.
 */
export function renderJobFor(requested: RenderRequested, deps: Pick<RenderWorkerDeps, 'renderTimeoutMs' | 'assetsFor'>): RenderJob {
  const { data } = requested;
  return {
    source: data.source,
    output: data.output,
    timeoutMs: deps.renderTimeoutMs,
    lane: data.mode,
    ...(data.pdfMetadata ? { pdfMetadata: data.pdfMetadata } : {}),
    ...(data.pdfParams ? { pdfParams: data.pdfParams } : {}),
    ...(data.ready ? { ready: data.ready } : {}),
    ...(deps.assetsFor ? { assets: deps.assetsFor(requested.tenantId) } : {}),
  };
}
