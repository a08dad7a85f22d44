import Type, { type Static } from 'typebox';
import { RenderError, TenantId } from './common.ts';
import { ArtifactRef, BatchItemOutcome, BatchStatus, RemovalReason, RenderMode } from './events.ts';
import { ToolRequestInfo, ToolResultInfo } from './tools.ts';

export const RenderState = Type.Union([Type.Literal('ONGOING'), Type.Literal('SUCCESS'), Type.Literal('FAILED')]);

/** The status view of one render, built only from events (rebuildable from the log). */
export const StatusViewEntry = Type.Object(
  {
    requestId: Type.String(),
    tenantId: TenantId,
    state: RenderState,
    mode: RenderMode,
    requestedAt: Type.Optional(Type.String()),
    /** The template version a template render used (pinned, or the latest when it was requested). */
    template: Type.Optional(
      Type.Object({ templateId: Type.String(), templateVersion: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    ),
    completedAt: Type.Optional(Type.String()),
    artifact: Type.Optional(ArtifactRef),
    executionMs: Type.Optional(Type.Number()),
    /** The file is a copy of an identical earlier render of the tenant (the render cache). */
    cached: Type.Optional(Type.Boolean()),
    error: Type.Optional(RenderError),
    /** Set when the request was withdrawn (refused with 503) before any outcome: the API answers 404. */
    withdrawnAt: Type.Optional(Type.String()),
    /** The request's externalId, shown on its status. */
    externalId: Type.Optional(Type.String()),
    /** Lifetime of the links handed out for this render, in seconds (absent: 3600). */
    linkTtlSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Where the diagnostics of a `debug` render are kept (our own storage), once it is rendered. */
    debugArtifact: Type.Optional(ArtifactRef),
    /** Render attempts started (RenderAttemptStarted), for the worker's crash bound; never shown to callers. */
    attempts: Type.Optional(Type.Integer({ minimum: 0 })),
    /** A PDF tool's request (RenderRequested.tool) and what it produced besides the artifact. */
    tool: Type.Optional(ToolRequestInfo),
    toolResult: Type.Optional(ToolResultInfo),
    /** Set once the render's files were removed (ArtifactRemoved): expired by retention, or deleted by the tenant. */
    removed: Type.Optional(Type.Object({ reason: RemovalReason, at: Type.String() }, { additionalProperties: false })),
    /** On an item of a batch: the batch it belongs to. */
    batchRequestId: Type.Optional(Type.String()),
    /**
     * On the entry of a batch (keyed by its batchRequestId): its items and, once finished, their
     * outcomes. `state` is then SUCCESS for SUCCESS and PARTIAL_SUCCESS, FAILED for FAILED, and
     * `artifact` is the merged file.
     */
    batch: Type.Optional(
      Type.Object(
        {
          kind: Type.Union([Type.Literal('template'), Type.Literal('html')]),
          items: Type.Array(Type.String()),
          merge: Type.Boolean(),
          webhook: Type.Optional(Type.String()),
          signedUrlExpiresIn: Type.Optional(Type.Integer({ minimum: 1 })),
          status: Type.Optional(BatchStatus),
          results: Type.Optional(Type.Array(BatchItemOutcome)),
          mergeError: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type RenderState = Static<typeof RenderState>;
export type StatusViewEntry = Static<typeof StatusViewEntry>;
