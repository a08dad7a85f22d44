import Type, { type Static } from 'typebox';
import { RenderError, TenantId } from './common.ts';
import { ArtifactRef, RenderMode } from './events.ts';

export const RenderState = Type.Union([Type.Literal('ONGOING'), Type.Literal('SUCCESS'), Type.Literal('FAILED')]);

/** The status view of one render, built only from events (rebuildable from the log). */
export const StatusViewEntry = Type.Object(
  {
    requestId: Type.String(),
    tenantId: TenantId,
    state: RenderState,
    mode: RenderMode,
    requestedAt: Type.Optional(Type.String()),
    completedAt: Type.Optional(Type.String()),
    artifact: Type.Optional(ArtifactRef),
    executionMs: Type.Optional(Type.Number()),
    error: Type.Optional(RenderError),
  },
  { additionalProperties: false },
);

export type RenderState = Static<typeof RenderState>;
export type StatusViewEntry = Static<typeof StatusViewEntry>;
