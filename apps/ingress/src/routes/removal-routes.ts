import type { Handlers } from '../http/route-table.ts';
import type { Context } from 'koa';
import { isTerminal, notFound, PressroomError } from '@pressroom/domain';
import type { RemovalReason } from '@pressroom/schemas';
import type { RenderRemoval, StatusView } from '@pressroom/core';
import { tenantOf } from '../http/auth.ts';
import { sendError } from '../http/error-mapper.ts';
import type { RenderRequests } from '../render-requests.ts';

/** How long DELETE waits for the status view to show the removal, so a status read right after says so. */
const VIEW_WAIT_MS = 5000;

/**
 * The status of a render whose files were removed: 410 in the contract's error shape, `EXPIRED`
 * (its plan's retention ran out) or `DELETED` (the tenant deleted it). Its history
 * (`GET /v1/pdf/{requestId}/events`) still shows the render and the removal.
 */
export function sendRemoved(ctx: Context, requestId: string, removed: { reason: RemovalReason; at: string }): void {
  const message =
    removed.reason === 'EXPIRED'
      ? `The files of render ${requestId} expired at ${removed.at} (retention of your plan); render it again for a new one.`
      : `Render ${requestId} was deleted at ${removed.at}.`;
  sendError(ctx, 410, removed.reason, message, { requestId, removedAt: removed.at });
}

/**
 * `DELETE /v1/pdf/{requestId}`: removes the render's files from our own storage now and records
 * it (ArtifactRemoved, DELETED). 204; another tenant's id is unknown (404); a render still
 * running is 409 (it would write its file after the delete). Deleting again answers 204.
 * Files the render wrote to the tenant's own S3 connection stay: that bucket is the tenant's.
 */
export function removalRoutes(deps: { requests: RenderRequests; removal: RenderRemoval; view: StatusView }): Handlers<'deleteRender'> {
  return {
    deleteRender: async (ctx) => {
      const tenant = tenantOf(ctx);
      const requestId = ctx.params.requestId ?? '';
      const entry = await deps.requests.status(tenant, requestId);
      if (!entry) throw notFound(`Render ${requestId}`);
      if (!isTerminal(entry)) throw new PressroomError('CONFLICT', `Render ${requestId} is still running; delete it once it has finished.`);
      if (entry.removed?.reason !== 'DELETED') {
        await deps.removal.remove(tenant.tenantId, requestId);
        await waitForRemoval(deps.view, requestId);
      }
      ctx.status = 204;
    },
  };
}

/** Polls the view until it shows the removal (the projector applies it from the log), bounded. */
async function waitForRemoval(view: StatusView, requestId: string): Promise<void> {
  const deadline = Date.now() + VIEW_WAIT_MS;
  while (Date.now() < deadline) {
    if ((await view.get(requestId))?.removed) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
