import { hostname } from 'node:os';
import {
  admitsRender,
  DEFAULT_ACCEPT_CLOCK_SKEW_MS,
  artifactKey,
  contentTypeFor,
  decideAfterRenderAttempt,
  countPdfPages,
  decideBeforeRenderAttempt,
  DEFAULT_RENDER_RETRY_POLICY,
  DEFAULT_TRANSIENT_RETRY_POLICY,
  PressroomError,
  tenantRenderCap,
  isTerminal,
  renderCacheKey,
  renderCacheUse,
  type FairSchedulerOptions,
  type RenderRetryPolicy,
  type StepFailure,
  type TransientRetryPolicy,
} from '@pressroom/domain';
import {
  applyToRenderCache,
  payloadFingerprint,
  createStoredPayloads,
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
  type StatusView,
  type PdfToolkit,
  type RenderCacheIndex,
  type ToolInputs,
  type PayloadCopies,
  type PayloadHandoff,
  type RenderHeadStartLink,
  type RenderOutput,
  type StoredPayloads,
} from '@pressroom/core';
import type { RenderRequested, ToolResultInfo } from '@pressroom/schemas';
import { runPdfTool } from './pdf-tool-step.ts';
import type { Metrics } from '@pressroom/observability';
import { HeadStarts, type HeadStart, type TakenHeadStart } from './head-starts.ts';
import { RenderSlots } from './render-slots.ts';
import { retryStep } from './retry-step.ts';

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
  /**
   * Requests held per lane, started or waiting for their turn (default: `concurrency`, i.e. no
   * read-ahead). Above `concurrency`, the worker reads past a tenant at its cap to serve others.
   */
  readAhead?: number;
  /**
   * How the async lane gives way to the sync lane: no async render starts while a sync one runs
   * or could start, nor for `asyncYieldMs` after the last one ended, within `asyncYieldMaxMs`
   * (see FairScheduler). Default: no yield.
   */
  asyncYield?: FairSchedulerOptions;
  /**
   * A tenant's plan cap on renders in flight (see `planRenderCap`). Either way the cap never
   * exceeds `concurrency - 1` (`tenantRenderCap`); without it, that is the cap of every tenant.
   */
  capForPlan?: (plan: string | undefined) => number;
  /** The PNG pixel cap of a plan (PRESSROOM_PLANS pngMaxPixels); none: the renderer's own limit. */
  pngMaxPixelsForPlan?: (plan: string | undefined) => number | undefined;
  /** The most pages a PNG of a plan stacks (PRESSROOM_PLANS pngMaxPages); none: no cap. */
  pngMaxPagesForPlan?: (plan: string | undefined) => number | undefined;
  renderTimeoutMs: number;
  group?: string;
  workerId?: string;
  /** The uploaded assets (fonts, images) of a tenant, for its renders. Default: none (every asset 404s). */
  assetsFor?: (tenantId: string) => AssetSource;
  /** Retries of a step that failed for a transient reason (storing the file, appending the outcome). */
  retry?: TransientRetryPolicy;
  /** A draw in [0, 1) for the retry jitter. Default Math.random. */
  random?: () => number;
  /** Clock difference tolerated between the ingress and the log when judging `acceptBy` (see admitsRender). */
  acceptClockSkewMs?: number;
  /** Retries of a render whose renderer crashed or wedged (RENDER_CRASHED). Default: DEFAULT_RENDER_RETRY_POLICY. */
  crashRetry?: RenderRetryPolicy;
  /**
   * The status view, for the attempts already recorded (RenderAttemptStarted) when a request is
   * delivered again after a worker died under it. Without it, only renderer crashes are bounded.
   */
  view?: Pick<StatusView, 'get'>;
  /** The PDF tools' programs and input reader; a `pdf-tool` request fails RENDER_ERROR without them. */
  pdfTools?: { toolkit: PdfToolkit; inputs: ToolInputs };
  /**
   * The render cache (issue 13): an identical render of the same tenant is served as a copy of
   * its earlier file, without Chromium, when the tenant's plan has it. Without it: never.
   */
  renderCache?: RenderCacheDeps;
  /** Payloads the ingress of this process stored (standalone): taken from memory, not read back. */
  payloadHandoff?: PayloadHandoff;
  /** Copies of the payloads the ingresses stored (distributed): taken beside the status read, not read back from S3. */
  payloadCopies?: PayloadCopies;
  /** Sync requests the ingress of this process offers before appending them (standalone): see RenderHeadStart. */
  headStart?: RenderHeadStartLink;
}

export interface RenderCacheDeps {
  index: RenderCacheIndex;
  /** Whether the plan has the cache (PRESSROOM_PLANS renderCache; default off). */
  allowedForPlan: (plan: string | undefined) => boolean;
  /** The tenant's uploaded assets by name and content hash (part of the key). */
  assetsOf: (tenantId: string) => Promise<{ name: string; sha256: string }[]>;
}

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
  const slots = new RenderSlots(deps.concurrency, deps.asyncYield);
  const payloads = createStoredPayloads({
    own: deps.storage.own,
    ...(deps.payloadHandoff ? { handoff: deps.payloadHandoff } : {}),
    ...(deps.payloadCopies ? { copies: deps.payloadCopies } : {}),
  });
  const capOf = (plan: string | undefined) => tenantRenderCap(deps.capForPlan?.(plan) ?? deps.concurrency, deps.concurrency);
  const skewMs = deps.acceptClockSkewMs ?? DEFAULT_ACCEPT_CLOCK_SKEW_MS;
  const headStarts = deps.headStart
    ? new HeadStarts({
        slots,
        capOf,
        begin: (requested) => beginEarly(deps, payloads, requested, skewMs),
        metrics: deps.metrics,
        logger: deps.logger,
        graceMs: skewMs,
      })
    : undefined;
  const detachHeadStarts = headStarts && deps.headStart?.attach(headStarts);
  const handle = async (record: LogRecord, ctx: ConsumeContext) => {
    if (record.event.type !== 'RenderRequested') return;
    const { tenantId, data } = record.event;
    const early = headStarts?.take(record.event);
    if (early) {
      // Begun at the offer, in a slot taken then: this delivery renders nothing of its own.
      deps.metrics.renderWaitSeconds.observe({ lane: data.mode }, 0);
      try {
        await handleRecord(deps, payloads, worker, record, ctx, early);
      } finally {
        await early.rendered.catch(() => {});
        early.release();
      }
      return;
    }
    // Waiting for a turn can be long: the group must still see this member alive.
    const beat = setInterval(() => void ctx.heartbeat().catch(() => {}), HEARTBEAT_EVERY_MS);
    const waitStarted = performance.now();
    let release: () => void;
    deps.metrics.renderBacklog.inc({ lane: data.mode });
    try {
      release = await slots.acquire(data.mode, tenantId, capOf(data.plan));
    } finally {
      clearInterval(beat);
      deps.metrics.renderBacklog.dec({ lane: data.mode });
    }
    deps.metrics.renderWaitSeconds.observe({ lane: data.mode }, (performance.now() - waitStarted) / 1000);
    try {
      await handleRecord(deps, payloads, worker, record, ctx);
    } finally {
      release();
    }
  };
  // Two lanes, two subscriptions: a flood of async work never sits in front of a sync caller.
  // Each reads ahead of its renders, so the fair scheduler has other tenants' requests to choose.
  const readAhead = Math.max(deps.concurrency, deps.readAhead ?? deps.concurrency);
  const sync = await deps.log.consume({
    group: `${group}.sync`,
    topics: [deps.topics.requestedSync],
    concurrency: readAhead,
    handle,
  });
  const async = await deps.log.consume({
    group: `${group}.async`,
    topics: [deps.topics.requestedAsync],
    concurrency: readAhead,
    handle,
  });
  return {
    async stop() {
      // Stop reading first, then turn away what waits for a slot (uncommitted: the next start
      // renders it), and let the renders in progress finish.
      detachHeadStarts?.();
      headStarts?.close();
      const stopping = Promise.all([sync.stop(), async.stop()]);
      slots.close();
      await stopping;
    },
  };
}

/**
 * A sync request's render begun from the ingress's offer, before its append (see HeadStarts):
 * its payload taken as the delivery would take it, then its first attempt. Undefined for what a
 * browser does not render here first: a PDF tool, and a render the render cache may serve.
 */
function beginEarly(deps: RenderWorkerDeps, payloads: StoredPayloads, requested: RenderRequested, skewMs: number): HeadStart | undefined {
  const { data } = requested;
  if (data.source.kind === 'pdf-tool') return undefined;
  if (deps.renderCache?.allowedForPlan(data.plan) && data.noCache !== true) return undefined;
  const acceptBy = Date.parse(data.acceptBy ?? '');
  const startedAt = performance.now();
  const resolved = payloads.resolve(data.source, Number.isNaN(acceptBy) ? {} : { storedBy: acceptBy + skewMs });
  const rendered = resolved.then((payload) => {
    if (!payload.ok) throw new Error(`the payload did not resolve: ${payload.code}`);
    return deps.renderer.render(renderJobFor({ ...requested, data: { ...data, source: payload.source } }, deps));
  });
  return { resolved, rendered, startedAt };
}

async function handleRecord(
  deps: RenderWorkerDeps,
  payloads: StoredPayloads,
  worker: string,
  record: LogRecord,
  ctx: ConsumeContext,
  early?: TakenHeadStart,
): Promise<void> {
  if (record.event.type !== 'RenderRequested') return;
  const requested = record.event;
  const logger = deps.logger.child({ requestId: requested.requestId, tenantId: requested.tenantId });
  const skewMs = deps.acceptClockSkewMs ?? DEFAULT_ACCEPT_CLOCK_SKEW_MS;
  if (!admitsRender(requested.data, record.writtenAt, skewMs)) {
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
  // A record delivered again (its worker died after writing the outcome, before committing the
  // position) whose outcome the status view already holds is not rendered a second time: one
  // request, one outcome on the log. The view also tells the attempts other deliveries started.
  // The stored payload is read back meanwhile (storage and the view are two round trips that do
  // not depend on each other: ~1.3 ms of a distributed render at concurrency 1, issue 13). Read
  // for nothing only when the record was already decided (a redelivery).
  // A payload missing before the request's acceptBy (and the clocks' tolerance) may still be on its way.
  const acceptBy = Date.parse(requested.data.acceptBy ?? '');
  const resolving = early
    ? early.resolved
    : payloads.resolve(requested.data.source, Number.isNaN(acceptBy) ? {} : { storedBy: acceptBy + skewMs });
  resolving.catch(() => {}); // awaited below; a failure then fails the handler (redelivery)
  const known = deps.view ? await deps.view.get(requested.requestId) : undefined;
  if (isTerminal(known)) {
    logger.info('request already decided on the log; not rendered again', { state: known?.state, worker });
    return;
  }
  // A head start's render began at the offer: its execution time counts from there.
  const started = early?.startedAt ?? performance.now();
  if (record.writtenAt !== undefined) {
    deps.metrics.renderQueueWaitSeconds.observe({ lane: requested.data.mode }, Math.max(0, Date.now() - record.writtenAt) / 1000);
  }
  logger.info('render started', { eventType: requested.type, lane: requested.data.mode, output: requested.data.output, worker });
  // Also during retry waits: a record waiting out a storage outage keeps its member in the group.
  const beat = setInterval(() => void ctx.heartbeat().catch(() => {}), HEARTBEAT_EVERY_MS);
  try {
    // A stored payload (PRESSROOM_PAYLOADS=store) is read back from our storage first; one that is
    // gone (deleted, expired) fails the render PAYLOAD_REMOVED, which no retry can change.
    const resolved = await resolving;
    const outcome: Outcome = resolved.ok
      ? await renderAndStore(
          deps,
          { ...requested, data: { ...requested.data, source: resolved.source } },
          { worker, signal: ctx.signal, logger },
          known?.attempts ?? 0,
          // A head start is the first attempt; a request with attempts on the log was never offered.
          early && !known?.attempts ? early.rendered : undefined,
        )
      : { error: { code: resolved.code, message: resolved.message }, retriable: false };
    const executionMs = Math.round(performance.now() - started);
    const ids = { requestId: requested.requestId, tenantId: requested.tenantId };
    const chromium = await deps.renderer.browserVersion?.().catch(() => undefined);
    const delivery = {
      mode: requested.data.mode,
      ...(requested.data.webhook ? { webhook: requested.data.webhook } : {}),
      ...(requested.data.linkTtlSeconds !== undefined ? { linkTtlSeconds: requested.data.linkTtlSeconds } : {}),
      ...(requested.data.externalId !== undefined ? { externalId: requested.data.externalId } : {}),
      ...(chromium ? { chromium } : {}),
    };
    const toolRequest = requested.data.tool ? { toolRequest: requested.data.tool } : {};
    // The payload by hash and size, on the outcome: what the log keeps of it once it is dropped.
    const source = requested.data.source;
    const payload = source.kind === 'stored' ? { sha256: source.payload.sha256, bytes: source.payload.bytes } : payloadFingerprint(source);
    const completed =
      'artifact' in outcome
        ? deps.event('RenderSucceeded', ids, {
            ...delivery,
            artifact: outcome.artifact,
            executionMs,
            worker,
            ...(outcome.pages !== undefined ? { pages: outcome.pages } : {}),
            payload,
            ...(outcome.debugArtifact ? { debugArtifact: outcome.debugArtifact } : {}),
            ...(outcome.tool ? { tool: outcome.tool } : {}),
            ...toolRequest,
            ...(outcome.cache ? { cache: outcome.cache } : {}),
          })
        : deps.event('RenderFailed', ids, {
            ...delivery,
            error: outcome.error,
            executionMs,
            worker,
            ...(outcome.retriable !== undefined ? { retriable: outcome.retriable } : {}),
            ...(outcome.attempts !== undefined ? { attempts: outcome.attempts } : {}),
            ...toolRequest,
            payload,
          });
    // A broker or registry blip is waited out here, with the file already stored; only when the
    // retries are spent does the handler reject, and the request is rendered again: at-least-once.
    const appended = await retryStep(() => deps.log.append(deps.topics.completed, [completed]), {
      policy: deps.retry ?? DEFAULT_TRANSIENT_RETRY_POLICY,
      random: deps.random ?? Math.random,
      signal: ctx.signal,
      classify: classifyTransient,
      onRetry: async ({ attempt, failure, delayMs, error }) => {
        // Not on the log: the log is what failed.
        logger.warn('appending the outcome failed; retrying', { attempt, delayMs, error: failure.message, err: error });
      },
    });
    if (!appended.ok) throw new Error(`the outcome could not be appended: ${appended.failure.message}`);
    if (deps.renderCache && completed.type === 'RenderSucceeded' && completed.data.cache) {
      // On the log first, then in the index (its projector applies it too; a failure here costs a render).
      await applyToRenderCache(deps.renderCache.index, completed).catch((err: unknown) => {
        logger.warn('the render cache index could not be updated', { err });
      });
    }
    const result = completed.type === 'RenderSucceeded' ? 'success' : 'failure';
    deps.metrics.renderSeconds.observe({ output: requested.data.output, outcome: result }, executionMs / 1000);
    deps.metrics.rendersTotal.inc({ outcome: result, code: 'error' in outcome ? outcome.error.code : '' });
    logger.info('render finished', {
      eventType: completed.type,
      outcome: result,
      executionMs,
      ...('error' in outcome ? { code: outcome.error.code } : {}),
    });
  } finally {
    clearInterval(beat);
  }
}

type ArtifactOut = { target: RenderRequested['data']['storage']; key: string; contentType: string; bytes: number };
type CacheNote = { key: string; hit: boolean; from?: string };
type Outcome =
  | { artifact: ArtifactOut; debugArtifact?: ArtifactOut; tool?: ToolResultInfo; pages?: number; cache?: CacheNote }
  | { error: { code: FailureCodeValue; message: string }; retriable?: boolean; attempts?: number };

interface StepContext {
  worker: string;
  signal: AbortSignal | undefined;
  logger: Logger;
}

async function renderAndStore(
  deps: RenderWorkerDeps,
  requested: RenderRequested,
  step: StepContext,
  earlier: number,
  firstAttempt?: Promise<RenderOutput>,
): Promise<Outcome> {
  const { data } = requested;
  if (data.source.kind === 'pdf-tool') {
    if (!deps.pdfTools) return { error: { code: 'RENDER_ERROR', message: 'This worker has no PDF tools configured.' } };
    const ran = await runPdfTool(
      deps.pdfTools,
      requested.tenantId,
      data.source.operation,
      data.tool?.fileName ?? `${requested.requestId}.pdf`,
    );
    if ('error' in ran) return ran;
    return storeToolOutputs(deps, requested, step, ran);
  }
  const key = artifactKey({ tenantId: requested.tenantId, requestId: requested.requestId, output: data.output, target: data.storage });
  const cacheKey = await renderCacheKeyOf(deps, requested, step.logger);
  if (cacheKey !== undefined) {
    const served = await serveFromCache(deps, requested, cacheKey, key, step.logger);
    if (served) return served;
  }
  const rendered = await renderWithRetries(deps, step.worker, requested, earlier, firstAttempt);
  if ('error' in rendered) return rendered;
  const bytes = rendered.bytes;
  const contentType = contentTypeFor(data.output);
  const stored = await storeWithRetries(deps, requested, step, () =>
    deps.storage.put(requested.tenantId, data.storage, key, bytes, contentType),
  );
  if (!stored.ok) {
    step.logger.warn('storing the file failed', {
      attempts: stored.attempts,
      retriable: stored.failure.retriable,
      error: stored.failure.message,
    });
    return {
      error: { code: 'STORAGE_ERROR', message: `The file could not be stored: ${stored.failure.message}` },
      retriable: stored.failure.retriable,
      attempts: stored.attempts,
    };
  }
  const artifact = { target: data.storage, key, contentType, bytes: bytes.byteLength };
  const debugArtifact = data.debug ? await storeDebug(deps, requested, rendered.html, step.logger) : undefined;
  // For usage: a PNG is one page; a PDF's pages are counted from its bytes (no parse, no child process).
  const pages = data.output === 'png' ? 1 : countPdfPages(bytes);
  return {
    artifact,
    pages,
    ...(debugArtifact ? { debugArtifact } : {}),
    ...(cacheKey !== undefined ? { cache: { key: cacheKey, hit: false } } : {}),
  };
}

/**
 * The request's content key when the render cache may serve it (renderCacheUse), else undefined.
 * Best effort: when the assets or the browser version cannot be read, the request just renders.
 */
async function renderCacheKeyOf(deps: RenderWorkerDeps, requested: RenderRequested, logger: Logger): Promise<string | undefined> {
  const cache = deps.renderCache;
  if (!cache) return undefined;
  const { data } = requested;
  try {
    const chromium = cache.allowedForPlan(data.plan) ? await deps.renderer.browserVersion?.() : undefined;
    const use = renderCacheUse({
      planAllows: cache.allowedForPlan(data.plan),
      optedOut: data.noCache === true,
      sourceKind: data.source.kind,
      storageKind: data.storage.kind,
      debug: data.debug !== undefined,
      tool: data.tool !== undefined,
      chromiumKnown: chromium !== undefined,
    });
    if (!use.use || chromium === undefined) return undefined;
    const job = renderJobFor(requested, deps);
    return renderCacheKey({
      tenantId: requested.tenantId,
      source: data.source,
      output: data.output,
      pdfParams: data.pdfParams,
      pdfMetadata: data.pdfMetadata,
      ready: data.ready,
      maxPngPixels: job.maxPngPixels,
      maxPngPages: job.maxPngPages,
      assets: await cache.assetsOf(requested.tenantId),
      chromium,
    });
  } catch (err) {
    logger.warn('the render cache key could not be made; rendering', { err });
    return undefined;
  }
}

/**
 * A copy of the file an identical earlier render of this tenant produced, under this request's
 * own key (DELETE and retention of one render never touch another's object), or undefined to
 * render: no entry (miss), its file gone (stale), or the index or storage failing (rendered, no
 * retry: a render is the fallback that always works).
 */
async function serveFromCache(
  deps: RenderWorkerDeps,
  requested: RenderRequested,
  cacheKey: string,
  key: string,
  logger: Logger,
): Promise<Outcome | undefined> {
  const { tenantId, data } = requested;
  const count = (outcome: 'hit' | 'miss' | 'stale') => deps.metrics.renderCacheTotal.inc({ outcome });
  try {
    const entry = await deps.renderCache?.index.get(tenantId, cacheKey);
    // Never another tenant's file: the key includes the tenant, and the file must be under its prefix.
    if (!entry || !entry.key.startsWith(`${tenantId}/`)) return void count('miss');
    const copied = entry.key === key || (await deps.storage.copyOwn(entry.key, key));
    if (!copied) {
      logger.info('the cached file is gone; rendering', { from: entry.requestId });
      return void count('stale');
    }
    count('hit');
    logger.info('served from the render cache', { from: entry.requestId });
    return {
      artifact: { target: data.storage, key, contentType: entry.contentType, bytes: entry.bytes },
      ...(entry.pages !== undefined ? { pages: entry.pages } : {}),
      cache: { key: cacheKey, hit: true, from: entry.requestId },
    };
  } catch (err) {
    logger.warn('the render cache failed; rendering', { err });
    return void count('miss');
  }
}

/**
 * The diagnostics of a `debug` render: the HTML the template produced and the door's variable
 * checks, as JSON in our own storage (whatever the file's target). Best effort: a render whose
 * diagnostics cannot be stored still succeeds, without them.
 */
async function storeDebug(
  deps: RenderWorkerDeps,
  requested: RenderRequested,
  html: string | undefined,
  logger: Logger,
): Promise<ArtifactOut | undefined> {
  const { data } = requested;
  const source = data.source;
  const report = {
    requestId: requested.requestId,
    ...(source.kind === 'template' ? { templateId: source.templateId, templateVersion: source.templateVersion } : {}),
    renderedHtml: html ?? null,
    variables: data.debug?.variables ?? [],
    unusedData: data.debug?.unusedData ?? [],
  };
  const bytes = new TextEncoder().encode(JSON.stringify(report, null, 2));
  const target = { kind: 'default' } as const;
  const key = `${artifactKey({ tenantId: requested.tenantId, requestId: requested.requestId, output: data.output, target })}.debug.json`;
  try {
    await deps.storage.put(requested.tenantId, target, key, bytes, 'application/json');
    return { target, key, contentType: 'application/json', bytes: bytes.byteLength };
  } catch (err) {
    logger.warn('the debug report could not be stored', { err });
    return undefined;
  }
}

/**
 * Stores a tool's files under `<tenant>/<requestId>/<file name>` in our own storage (a retry
 * overwrites them), the first as the request's artifact, the others as its parts.
 */
async function storeToolOutputs(
  deps: RenderWorkerDeps,
  requested: RenderRequested,
  step: StepContext,
  ran: { files: { name: string; bytes: Uint8Array }[]; originalBytes?: number },
): Promise<Outcome> {
  const target = { kind: 'default' } as const;
  const stored: { key: string; bytes: number }[] = [];
  for (const file of ran.files) {
    const key = `${requested.tenantId}/${requested.requestId}/${file.name}`;
    const put = await storeWithRetries(deps, requested, step, () =>
      deps.storage.put(requested.tenantId, target, key, file.bytes, 'application/pdf'),
    );
    if (!put.ok) {
      return {
        error: { code: 'STORAGE_ERROR', message: `The file could not be stored: ${put.failure.message}` },
        retriable: put.failure.retriable,
        attempts: put.attempts,
      };
    }
    stored.push({ key, bytes: file.bytes.byteLength });
  }
  const [first, ...rest] = stored;
  if (!first) return { error: { code: 'RENDER_ERROR', message: 'The tool produced no file.' } };
  return {
    artifact: { target, key: first.key, contentType: 'application/pdf', bytes: first.bytes },
    tool: { ...(rest.length ? { parts: stored } : {}), ...(ran.originalBytes !== undefined ? { originalBytes: ran.originalBytes } : {}) },
  };
}

/**
 * Stores the rendered bytes, trying again while storage is unreachable; every retry goes on the
 * render's history (RenderRetryScheduled on the completed topic) before the wait. The bytes are
 * kept, so a storage outage never costs a second render.
 */
function storeWithRetries(deps: RenderWorkerDeps, requested: RenderRequested, step: StepContext, put: () => Promise<void>) {
  const ids = { requestId: requested.requestId, tenantId: requested.tenantId };
  return retryStep(put, {
    policy: deps.retry ?? DEFAULT_TRANSIENT_RETRY_POLICY,
    random: deps.random ?? Math.random,
    signal: step.signal,
    classify: classifyTransient,
    onRetry: async ({ attempt, failure, delayMs, error }) => {
      const nextAttemptAt = new Date(Date.now() + delayMs).toISOString();
      // `err` carries the cause chain: the ECONNREFUSED or timeout behind the storage error.
      step.logger.warn('storing the file failed; retrying', { attempt, delayMs, error: failure.message, err: error });
      const retry = deps.event('RenderRetryScheduled', ids, {
        mode: requested.data.mode,
        step: 'store',
        attempt,
        error: { code: 'STORAGE_ERROR', message: failure.message },
        delayMs,
        nextAttemptAt,
        worker: step.worker,
      });
      // Best effort: when the log is down too, the retry still happens, only its record is missing.
      await deps.log.append(deps.topics.completed, [retry]).catch((err: unknown) => {
        step.logger.warn('could not record the retry on the log', { err });
      });
    },
  });
}

/**
 * Whether trying again can help: a PressroomError says so itself (S3: unreachable, throttled or
 * 5xx yes; a refusal such as wrong credentials or a deleted connection no); a programming error
 * never; anything else unexpected from infrastructure yes (the attempts are bounded).
 */
export function classifyTransient(error: unknown): StepFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof PressroomError) return { retriable: error.retryable, message };
  if (error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError) return { retriable: false, message };
  if (error instanceof Error && error.name === 'EventDecodeError') return { retriable: false, message };
  return { retriable: true, message };
}

/**
 * Renders the request; when the renderer crashes or wedges under it, tries again a bounded
 * number of times (decideAfterRenderAttempt), so a request that kills the renderer every time
 * ends as RENDER_CRASHED on the log instead of being replayed forever (a poison message).
 */
async function renderWithRetries(
  deps: RenderWorkerDeps,
  worker: string,
  requested: RenderRequested,
  /** Attempts other deliveries of this record started and never finished (their worker died). */
  earlier: number,
  /** The first attempt, already begun (a head start); later attempts render here. */
  firstAttempt?: Promise<RenderOutput>,
): Promise<{ bytes: Uint8Array; html?: string } | { error: { code: FailureCodeValue; message: string } }> {
  const policy = deps.crashRetry ?? DEFAULT_RENDER_RETRY_POLICY;
  const ids = { requestId: requested.requestId, tenantId: requested.tenantId };
  const logger = deps.logger.child(ids);
  for (let attempt = earlier + 1; ; attempt++) {
    const gate = decideBeforeRenderAttempt({ attempt, policy });
    if (gate.outcome === 'record-crash') {
      logger.error('earlier attempts at this render never finished; recording it as failed', { attempts: attempt - 1 });
      return { error: { code: 'RENDER_CRASHED', message: gate.message } };
    }
    // Recorded alongside the render, not before it: the render does not wait for the log, and a
    // worker that dies in the first milliseconds of an attempt costs at most one uncounted attempt.
    const recorded = deps.view
      ? deps.log.append(deps.topics.completed, [deps.event('RenderAttemptStarted', ids, { attempt, worker })])
      : Promise.resolve();
    recorded.catch(() => {}); // awaited below; a failure then fails the handler (redelivery)
    try {
      const begun = attempt === earlier + 1 ? firstAttempt : undefined;
      const out = await (begun ?? deps.renderer.render(renderJobFor(requested, deps)));
      const bytes = out.bytes;
      await recorded; // before the outcome, so the attempt precedes it on the log
      return { bytes, ...(out.html !== undefined ? { html: out.html } : {}) };
    } catch (err) {
      await recorded;
      if (!(err instanceof RenderFailure)) {
        logger.error('renderer failed unexpectedly', { err });
        return { error: { code: 'RENDER_ERROR', message: 'The renderer failed unexpectedly.' } };
      }
      const decision = decideAfterRenderAttempt({ code: err.code, attempt, policy });
      if (decision.outcome === 'record') return { error: { code: err.code, message: err.message } };
      if (decision.outcome === 'record-crash') {
        logger.error('the renderer crashed on every attempt at this render; recording it as failed', { attempts: attempt });
        return { error: { code: 'RENDER_CRASHED', message: decision.message } };
      }
      logger.warn('the renderer crashed during this render; trying again', { attempt, delayMs: decision.delayMs, reason: err.message });
      await new Promise((resolve) => setTimeout(resolve, decision.delayMs));
    }
  }
}

/**
 * The job for a request: its source (the template's header and footer included), output, page
 * setup and readiness signal as requested, this tenant's assets, and the worker's time limit.
 */
export function renderJobFor(
  requested: RenderRequested,
  deps: Pick<RenderWorkerDeps, 'renderTimeoutMs' | 'assetsFor' | 'pngMaxPixelsForPlan' | 'pngMaxPagesForPlan'>,
): RenderJob {
  const { data } = requested;
  const pngCap = data.output === 'png' ? deps.pngMaxPixelsForPlan?.(data.plan) : undefined;
  const pngPages = data.output === 'png' ? deps.pngMaxPagesForPlan?.(data.plan) : undefined;
  return {
    source: data.source,
    output: data.output,
    // The request's own pdfParams.timeout may shorten the limit, never lengthen it (0: the service's).
    timeoutMs: data.pdfParams?.timeout ? Math.min(data.pdfParams.timeout, deps.renderTimeoutMs) : deps.renderTimeoutMs,
    lane: data.mode,
    tenantId: requested.tenantId,
    ...(data.debug ? { debug: true } : {}),
    ...(data.pdfMetadata ? { pdfMetadata: data.pdfMetadata } : {}),
    ...(data.pdfParams ? { pdfParams: data.pdfParams } : {}),
    ...(data.ready ? { ready: data.ready } : {}),
    ...(pngCap !== undefined ? { maxPngPixels: pngCap } : {}),
    ...(pngPages !== undefined ? { maxPngPages: pngPages } : {}),
    ...(deps.assetsFor ? { assets: deps.assetsFor(requested.tenantId) } : {}),
  };
}
