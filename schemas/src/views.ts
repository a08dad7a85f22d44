import Type, { type Static } from 'typebox';
import { RenderError, TenantId } from './common.ts';
import { ArtifactRef, RenderMode } from './events.ts';
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
  },
  { additionalProperties: false },
);

export type RenderState = Static<typeof RenderState>;
export type StatusViewEntry = Static<typeof StatusViewEntry>;
