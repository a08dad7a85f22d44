import Type, { type Static, type TSchema } from 'typebox';
import { OutputKind, PdfMetadata, RenderError, RequestId, TenantId, eventEnvelope } from './common.ts';
import { PdfParams, ReadySignal } from './page-setup.ts';
import { ToolOperation, ToolRequestInfo, ToolResultInfo } from './tools.ts';
import { TemplateCreated, TemplateDeleted, TemplateRevised, type TemplateEvent } from './template-events.ts';
import { AssetDeleted, AssetUploaded, type AssetEvent } from './asset-events.ts';
import {
  ApiKeyIssued,
  ApiKeyRevoked,
  ApiKeyRotated,
  S3ConnectionDeleted,
  TenantPlanChanged,
  S3ConnectionRegistered,
  TenantCreated,
  WebhookSecretCreated,
  WebhookSecretRotated,
  type CatalogEvent,
} from './catalog-events.ts';

/** Every event has the same envelope; `data` is the type's payload. */
function envelope<T extends string, D extends TSchema>(type: T, data: D) {
  return eventEnvelope(type, { requestId: RequestId, tenantId: TenantId }, data);
}

export const RenderMode = Type.Union([Type.Literal('sync'), Type.Literal('async')]);

export const RenderSource = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('template'),
      templateId: Type.String(),
      templateVersion: Type.Integer({ minimum: 1 }),
      content: Type.String(),
      /** Eta sources of the running header and footer; same data, fonts and assets as the body. */
      header: Type.Optional(Type.String()),
      footer: Type.Optional(Type.String()),
      data: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal('html'), html: Type.String() }, { additionalProperties: false }),
  /** A PDF tool (merge, split, compress, metadata): documents in, documents out; no browser. */
  Type.Object({ kind: Type.Literal('pdf-tool'), operation: ToolOperation }, { additionalProperties: false }),
  /**
   * The payload (an `html` or `template` source above, as JSON) is in our own storage, not on
   * the log (PRESSROOM_PAYLOADS=store): the event carries where, and its SHA-256 and size. The
   * worker reads it back; once removed (retention, DELETE) the render fails PAYLOAD_REMOVED.
   */
  Type.Object(
    {
      kind: Type.Literal('stored'),
      of: Type.Union([Type.Literal('html'), Type.Literal('template')]),
      templateId: Type.Optional(Type.String()),
      templateVersion: Type.Optional(Type.Integer({ minimum: 1 })),
      payload: Type.Object(
        {
          key: Type.String({ description: 'Object key in our own storage.' }),
          sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
          bytes: Type.Integer({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
]);

/** Where the artifact goes: our storage, or one of the tenant's S3 connections. */
export const StorageTarget = Type.Union([
  Type.Object({ kind: Type.Literal('default') }, { additionalProperties: false }),
  Type.Object(
    { kind: Type.Literal('s3-connection'), connectionId: Type.String(), key: Type.Optional(Type.String()) },
    { additionalProperties: false },
  ),
]);

export const ArtifactRef = Type.Object(
  {
    target: StorageTarget,
    key: Type.String({ description: 'Object key inside the target.' }),
    contentType: Type.String(),
    bytes: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

/** What the door found about a template render's variables, kept for a `debug` render. */
export const DebugChecks = Type.Object(
  {
    variables: Type.Array(
      Type.Object(
        { name: Type.String(), type: Type.String(), required: Type.Boolean(), provided: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    /** Top-level members of `data` that no variable of the template uses. */
    unusedData: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
export type DebugChecks = Static<typeof DebugChecks>;

const Delivery = {
  mode: RenderMode,
  webhook: Type.Optional(Type.String()),
  /** Lifetime of the links handed out for this render (the request's signedUrlExpiresIn); absent: 3600 s. */
  linkTtlSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
  /** The caller's own reference for the render (the request's externalId). */
  externalId: Type.Optional(Type.String({ maxLength: 256 })),
};

export const RenderRequested = envelope(
  'RenderRequested',
  Type.Object(
    {
      ...Delivery,
      source: RenderSource,
      output: OutputKind,
      pdfMetadata: Type.Optional(PdfMetadata),
      /** Page setup already merged: template defaults, then the request's pdfParams. */
      pdfParams: Type.Optional(PdfParams),
      ready: Type.Optional(ReadySignal),
      /** A preview for an editor: the caller reads the bytes back at once (no webhook, no link). */
      preview: Type.Optional(Type.Boolean()),
      storage: StorageTarget,
      /**
       * The tenant's plan when the request was accepted: the worker's per-tenant cap on renders
       * in flight follows it, without a catalog lookup. Absent on older records (the smallest cap).
       */
      plan: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      /**
       * When the ingress stops waiting for the log to take this request and answers 503. A
       * request the log wrote after it was refused, so the render worker withdraws it unrendered.
       */
      acceptBy: Type.Optional(Type.String({ format: 'date-time' })),
      /** The caller's Idempotency-Key, when it sent one (on the log for audit and to rebuild the keys). */
      idempotencyKey: Type.Optional(Type.String({ maxLength: 255 })),
      /**
       * The caller asked for diagnostics (`debug`): the variable checks made at the door; the
       * worker keeps them with the rendered HTML next to the file.
       */
      debug: Type.Optional(DebugChecks),
      /**
       * Set on a request of a PDF tool (`/v1/tools/*`): its status and webhook answer in the
       * tools' shape. Markdown → PDF is an `html` source with this set; the other tools have a
       * `pdf-tool` source.
       */
      tool: Type.Optional(ToolRequestInfo),
      /** The batch this render is an item of (`POST /v1/pdf/batch`, `/v1/html-to-pdf/batch`), and its place in it. */
      batch: Type.Optional(
        Type.Object({ batchRequestId: RequestId, index: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
      ),
      /**
       * With `idempotencyKey`: the hash (SHA-256, hex) of what the key was sent with (endpoint and
       * body, member order aside). A retry with the key and another body is refused by it, also
       * when the Idempotency-Keys are rebuilt from the log.
       */
      idempotencyFingerprint: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
      /** The caller sent `cache: false`: rendered afresh even when its plan has the render cache. */
      noCache: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
);

/** The browser that rendered (`chromium --version`), for audit; absent on older records and where unknown. */
const Chromium = Type.Optional(Type.String({ maxLength: 200, description: 'The browser that rendered, e.g. "Chromium 156.0.8078.79".' }));

/**
 * What identifies a request's payload (its HTML or template and data) once the payload itself is
 * gone from the log: the SHA-256 and size of the request's `source` as JSON, recorded on the outcome.
 */
export const PayloadFingerprint = Type.Object(
  { sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }), bytes: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);
export type PayloadFingerprint = Static<typeof PayloadFingerprint>;

export const RenderSucceeded = envelope(
  'RenderSucceeded',
  Type.Object(
    {
      ...Delivery,
      artifact: ArtifactRef,
      executionMs: Type.Number({ minimum: 0 }),
      worker: Type.String(),
      chromium: Chromium,
      /** Pages of the file (1 for a PNG), for usage; absent on events written before it was recorded. */
      pages: Type.Optional(Type.Integer({ minimum: 0 })),
      /** The request's payload, by hash and size (PayloadFingerprint). */
      payload: Type.Optional(PayloadFingerprint),
      /** Diagnostics of a `debug` render (rendered HTML, variable checks), as JSON in our own storage. */
      debugArtifact: Type.Optional(ArtifactRef),
      /** A tool's further outputs (the parts of a split) and the size of its input (compress). */
      tool: Type.Optional(ToolResultInfo),
      /** A tool request's `tool`, echoed: the webhook dispatcher reads completions only, and answers in the tools' shape. */
      toolRequest: Type.Optional(ToolRequestInfo),
      /**
       * The render cache (a plan feature): `key` is the render's content key (renderCacheKey), which
       * the cache index is built from; `hit` says the file is a copy of the earlier render `from`
       * (no Chromium). Absent when the cache was not used for this request.
       */
      cache: Type.Optional(
        Type.Object(
          { key: Type.String({ pattern: '^[0-9a-f]{64}$' }), hit: Type.Boolean(), from: Type.Optional(Type.String()) },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const RenderFailed = envelope(
  'RenderFailed',
  Type.Object(
    {
      ...Delivery,
      error: RenderError,
      executionMs: Type.Number({ minimum: 0 }),
      worker: Type.String(),
      chromium: Chromium,
      retriable: Type.Optional(
        Type.Boolean({ description: 'Whether the failure was transient (infrastructure) and retries were spent, not the document’s own.' }),
      ),
      attempts: Type.Optional(Type.Integer({ minimum: 1, description: 'Attempts the failing step made.' })),
      /** A tool request's `tool`, echoed (see RenderSucceeded). */
      toolRequest: Type.Optional(ToolRequestInfo),
      /** The request's payload, by hash and size (PayloadFingerprint). */
      payload: Type.Optional(PayloadFingerprint),
    },
    { additionalProperties: false },
  ),
);

/** The step of a render that failed for a transient reason and is tried again. */
export const RenderStep = Type.Union([Type.Literal('store'), Type.Literal('append')]);

/**
 * One attempt of a render step failed for a transient reason (storage unreachable…) and the
 * step is tried again after `delayMs`. On the completed topic, so a render's history shows
 * every retry; the status view ignores it (the render is still ONGOING).
 */
export const RenderRetryScheduled = envelope(
  'RenderRetryScheduled',
  Type.Object(
    {
      mode: RenderMode,
      step: RenderStep,
      attempt: Type.Integer({ minimum: 1, description: 'The attempt that failed.' }),
      error: RenderError,
      delayMs: Type.Integer({ minimum: 0 }),
      nextAttemptAt: Type.String({ format: 'date-time' }),
      worker: Type.String(),
    },
    { additionalProperties: false },
  ),
);

/**
 * Why a request is withdrawn: the ingress answered 503 and the request may still reach the log
 * (NOT_ACCEPTED), or the render worker found it written after the ingress's `acceptBy`
 * (WRITTEN_AFTER_DEADLINE).
 */
export const WithdrawalReason = Type.Union([Type.Literal('NOT_ACCEPTED'), Type.Literal('WRITTEN_AFTER_DEADLINE')]);

/**
 * A request the ingress refused (503) is withdrawn: never rendered, never delivered, its status
 * 404. Appended to the completed topic (key requestId), so it and the render outcome are in one
 * order that the status projector and the webhook dispatcher read alike: the first of them wins.
 */
export const RenderWithdrawn = envelope(
  'RenderWithdrawn',
  Type.Object(
    { ...Delivery, reason: WithdrawalReason, by: Type.String({ description: 'The process that withdrew it.' }) },
    { additionalProperties: false },
  ),
);

/**
 * A render worker is about to render the request (attempt n, 1-based). Recorded before the
 * render, so the attempts of a request that kills the whole worker process are counted on the
 * log and bounded too (PRESSROOM_RENDER_CRASH_RETRIES), not only those whose renderer died.
 */
export const RenderAttemptStarted = envelope(
  'RenderAttemptStarted',
  Type.Object({ attempt: Type.Integer({ minimum: 1 }), worker: Type.String() }, { additionalProperties: false }),
);

/** Why a render's files were removed: its plan's retention ran out, or the tenant deleted it. */
export const RemovalReason = Type.Union([Type.Literal('EXPIRED'), Type.Literal('DELETED')]);

/**
 * A render's files in our own storage (file, previews, debug report, tool outputs) were removed:
 * by the retention sweeper (EXPIRED) or by `DELETE /v1/pdf/{requestId}` (DELETED). On the
 * completed topic (key requestId), so the status view and the history know; files in a
 * tenant's own S3 connection are never removed by us (`keys` lists only what we removed).
 */
export const ArtifactRemoved = envelope(
  'ArtifactRemoved',
  Type.Object(
    {
      reason: RemovalReason,
      keys: Type.Array(Type.String()),
      by: Type.String({ description: 'The process that removed them.' }),
    },
    { additionalProperties: false },
  ),
);

/** The outcome of a finished batch: every item succeeded, some did, or none did. */
export const BatchStatus = Type.Union([Type.Literal('SUCCESS'), Type.Literal('PARTIAL_SUCCESS'), Type.Literal('FAILED')]);

/** What a batch is, the same on its request and on its completion. */
const BatchMembers = {
  ...Delivery,
  kind: Type.Union([Type.Literal('template'), Type.Literal('html')]),
  merge: Type.Boolean(),
  /** Lifetime of the links handed out for this batch, in seconds (default 3600). */
  signedUrlExpiresIn: Type.Optional(Type.Integer({ minimum: 1 })),
};

/**
 * A batch of renders was accepted (`requestId` is the batchRequestId). Appended to the completed
 * topic after its items' RenderRequested (each carries `batch`), so a batch on the log always has
 * its items there too. `items` lists the item requestIds in the caller's order.
 */
export const BatchRequested = envelope(
  'BatchRequested',
  Type.Object(
    {
      ...BatchMembers,
      items: Type.Array(RequestId, { minItems: 1 }),
    },
    { additionalProperties: false },
  ),
);

/** One item's outcome as the batch recorded it when it finished. */
export const BatchItemOutcome = Type.Object(
  {
    requestId: RequestId,
    state: Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAILED')]),
    artifact: Type.Optional(ArtifactRef),
    executionMs: Type.Optional(Type.Number({ minimum: 0 })),
    error: Type.Optional(RenderError),
  },
  { additionalProperties: false },
);

/**
 * Every item of a batch has finished; the merged file (when `merge` was asked and an item
 * succeeded) is stored. Written by the batch finisher; the batch's webhook, if any, delivers it.
 */
export const BatchCompleted = envelope(
  'BatchCompleted',
  Type.Object(
    {
      ...BatchMembers,
      status: BatchStatus,
      results: Type.Array(BatchItemOutcome),
      merged: Type.Optional(ArtifactRef),
      /** Why the merge was not made although asked (no item succeeded, or merging failed). */
      mergeError: Type.Optional(Type.String()),
      executionMs: Type.Number({ minimum: 0 }),
      worker: Type.String(),
    },
    { additionalProperties: false },
  ),
);

/** Which delivery of a result this is: the first one (0) or the n-th replay. */
const WebhookIds = {
  webhookId: Type.Optional(Type.String({ description: 'The `webhook-id` header: stable for one result, across retries and replays.' })),
  round: Type.Optional(Type.Integer({ minimum: 0, description: '0 for the first delivery, n for the n-th replay.' })),
};

export const WebhookDelivered = envelope(
  'WebhookDelivered',
  Type.Object(
    {
      url: Type.String(),
      statusCode: Type.Integer(),
      durationMs: Type.Number(),
      renderStatus: Type.String(),
      ...WebhookIds,
      attempts: Type.Optional(Type.Integer({ minimum: 1, description: 'Attempts this round took.' })),
    },
    { additionalProperties: false },
  ),
);

export const WebhookFailed = envelope(
  'WebhookFailed',
  Type.Object(
    {
      url: Type.String(),
      statusCode: Type.Optional(Type.Integer()),
      durationMs: Type.Number(),
      renderStatus: Type.String(),
      reason: Type.String(),
      ...WebhookIds,
      attempts: Type.Optional(Type.Integer({ minimum: 0, description: 'Attempts this round made (0: none was allowed).' })),
    },
    { additionalProperties: false },
  ),
);

/** What one attempt led to: delivered, another attempt later, or no more attempts this round. */
export const WebhookAttemptOutcome = Type.Union([Type.Literal('delivered'), Type.Literal('retrying'), Type.Literal('failed')]);

/** Which attempt: the same on its start and on its outcome. */
const WebhookAttemptMembers = {
  webhookId: Type.String(),
  url: Type.String(),
  round: Type.Integer({ minimum: 0 }),
  attempt: Type.Integer({ minimum: 1, description: 'Attempt number within the round.' }),
  renderStatus: Type.String(),
  startedAt: Type.String({ format: 'date-time' }),
};

/** One HTTP attempt to deliver a result, whatever its outcome. Recorded after the attempt ended. */
export const WebhookAttempted = envelope(
  'WebhookAttempted',
  Type.Object(
    {
      ...WebhookAttemptMembers,
      statusCode: Type.Optional(Type.Integer()),
      durationMs: Type.Number({ minimum: 0 }),
      error: Type.Optional(Type.String({ description: 'Why the attempt did not get a 2xx: timeout, connection error, HTTP status…' })),
      outcome: WebhookAttemptOutcome,
      nextAttemptAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the next attempt is due (outcome retrying).' })),
    },
    { additionalProperties: false },
  ),
);

/**
 * An attempt is about to reach the network: recorded before the request is sent, so an
 * attempt cut short by a crash (sent, perhaps received, never recorded as ended) is still on
 * the log. Its outcome is the WebhookAttempted of the same round and attempt, if any.
 */
export const WebhookAttemptStarted = envelope(
  'WebhookAttemptStarted',
  Type.Object(
    {
      ...WebhookAttemptMembers,
    },
    { additionalProperties: false },
  ),
);

/** Someone asked to deliver a finished result again (API or ops CLI); the dispatcher acts on it. */
export const WebhookReplayRequested = envelope(
  'WebhookReplayRequested',
  Type.Object(
    {
      requestedBy: Type.Union([Type.Literal('api'), Type.Literal('ops')]),
      replayId: Type.String({ description: 'Shared by every request of one replay call.' }),
    },
    { additionalProperties: false },
  ),
);

/** Where a signed download link was handed out. */
export const LinkChannel = Type.Union([Type.Literal('sync'), Type.Literal('status'), Type.Literal('webhook'), Type.Literal('batch')]);

/**
 * A signed download link to a render's file was handed out (audit: who could fetch it, until
 * when). Never the link itself: its signature is a bearer credential. Recorded after the fact and
 * best effort (a batched appender; see ARCHITECTURE.md): the link is valid whether or not this is.
 * On the webhooks topic, keyed by requestId; no view folds it.
 */
export const LinkIssued = envelope(
  'LinkIssued',
  Type.Object(
    {
      where: LinkChannel,
      file: Type.Union([Type.Literal('result'), Type.Literal('debug'), Type.Literal('merged')], {
        description: "Which file: the render's result, a debug render's diagnostics, a batch's merged PDF.",
      }),
      expiresAt: Type.String({ format: 'date-time', description: 'When the link stops working.' }),
    },
    { additionalProperties: false },
  ),
);

export const PressroomEvent = Type.Union([
  RenderRequested,
  RenderAttemptStarted,
  RenderSucceeded,
  RenderFailed,
  RenderRetryScheduled,
  WebhookDelivered,
  WebhookFailed,
  WebhookAttempted,
  WebhookReplayRequested,
  WebhookAttemptStarted,
  RenderWithdrawn,
  BatchRequested,
  BatchCompleted,
  ArtifactRemoved,
  LinkIssued,
]);

export type RenderRequested = Static<typeof RenderRequested>;
export type RenderSucceeded = Static<typeof RenderSucceeded>;
export type RenderFailed = Static<typeof RenderFailed>;
export type RenderRetryScheduled = Static<typeof RenderRetryScheduled>;
export type WebhookDelivered = Static<typeof WebhookDelivered>;
export type WebhookFailed = Static<typeof WebhookFailed>;
export type WebhookAttempted = Static<typeof WebhookAttempted>;
export type WebhookReplayRequested = Static<typeof WebhookReplayRequested>;
export type WebhookAttemptStarted = Static<typeof WebhookAttemptStarted>;
export type RenderWithdrawn = Static<typeof RenderWithdrawn>;
export type BatchRequested = Static<typeof BatchRequested>;
export type BatchCompleted = Static<typeof BatchCompleted>;
export type BatchStatus = Static<typeof BatchStatus>;
export type ArtifactRemoved = Static<typeof ArtifactRemoved>;
export type LinkIssued = Static<typeof LinkIssued>;
export type LinkChannel = Static<typeof LinkChannel>;
export type RemovalReason = Static<typeof RemovalReason>;
export type BatchItemOutcome = Static<typeof BatchItemOutcome>;
export type WithdrawalReason = Static<typeof WithdrawalReason>;
export type WebhookEvent = WebhookDelivered | WebhookFailed | WebhookAttempted | WebhookReplayRequested | WebhookAttemptStarted;
export type PressroomEvent = Static<typeof PressroomEvent>;
export type RenderCompleted = RenderSucceeded | RenderFailed;
export type RenderAttemptStarted = Static<typeof RenderAttemptStarted>;
export type StorageTarget = Static<typeof StorageTarget>;
export type ArtifactRef = Static<typeof ArtifactRef>;
export type RenderSource = Static<typeof RenderSource>;
export type RenderMode = Static<typeof RenderMode>;

/**
 * Anything on a topic: render and webhook events (key requestId), template events (key
 * templateId), catalog events (key tenantId) and asset events (key tenantId).
 */
export type LogEvent = PressroomEvent | TemplateEvent | CatalogEvent | AssetEvent;

/** Schemas by event type, for codecs and the registry. */
export const EventSchemas = {
  RenderRequested,
  RenderAttemptStarted,
  RenderSucceeded,
  RenderFailed,
  WebhookDelivered,
  WebhookFailed,
  TemplateCreated,
  TemplateRevised,
  TemplateDeleted,
  WebhookAttempted,
  WebhookReplayRequested,
  TenantCreated,
  ApiKeyIssued,
  S3ConnectionRegistered,
  WebhookSecretCreated,
  WebhookSecretRotated,
  TenantPlanChanged,
  ApiKeyRevoked,
  ApiKeyRotated,
  S3ConnectionDeleted,
  RenderRetryScheduled,
  WebhookAttemptStarted,
  RenderWithdrawn,
  BatchRequested,
  BatchCompleted,
  AssetUploaded,
  AssetDeleted,
  ArtifactRemoved,
  LinkIssued,
} as const;
export type EventType = keyof typeof EventSchemas;

/**
 * Compile-time check that the registry and the event unions agree: an event type added to
 * LogEvent without a schema in EventSchemas (or the other way round) fails `npm run typecheck`.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const registryMatchesLogEvents: Same<LogEvent['type'], EventType> = true;
