import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { PressroomError, usageRangeProblem, validationError } from '@pressroom/domain';
import type { UsageResponse } from '@pressroom/schemas';
import { readUsage, type EventLog, type TopicNames } from '@pressroom/core';
import { bearer, tenantOf } from '../http/auth.ts';

/** The `from`/`to` of a usage query, checked (400 naming the problem). */
function rangeOf(ctx: Context): { from: string; to: string } {
  const { from, to } = ctx.query;
  const problem = usageRangeProblem(from, to);
  if (problem) throw validationError([{ field: 'from', message: problem }]);
  return { from: from as string, to: to as string };
}

/**
 * `GET /v1/usage?from=YYYY-MM-DD&to=YYYY-MM-DD`: the caller's own usage by day (UTC, both days
 * included): renders by outcome, pages, bytes and render seconds, from the log (readUsage).
 */
export function usageRoutes(deps: { log: EventLog; topics: TopicNames }): Router {
  const router = new Router();
  router.get('/v1/usage', async (ctx) => {
    const range = rangeOf(ctx);
    const body: UsageResponse = { ...range, days: await readUsage(deps, { ...range, tenantId: tenantOf(ctx).tenantId }) };
    ctx.body = body;
  });
  return router;
}

/**
 * `GET /admin/v1/usage?from=…&to=…[&tenant=…]`: every tenant's usage (or one's), for billing.
 * Operator only, behind PRESSROOM_ADMIN_TOKEN like the rest of /admin/v1.
 */
export function adminUsageRoutes(deps: { log: EventLog; topics: TopicNames; adminToken: string }): Router {
  const router = new Router({ prefix: '/admin/v1' });
  const expected = createHash('sha256').update(deps.adminToken).digest();
  router.use(async (ctx: Context, next: Next) => {
    const given = createHash('sha256')
      .update(bearer(ctx) ?? '')
      .digest();
    if (!timingSafeEqual(given, expected)) throw new PressroomError('UNAUTHENTICATED', 'The admin token is not valid.');
    await next();
  });
  router.get('/usage', async (ctx) => {
    const range = rangeOf(ctx);
    const tenant = typeof ctx.query.tenant === 'string' && ctx.query.tenant ? { tenantId: ctx.query.tenant } : {};
    const body: UsageResponse = { ...range, days: await readUsage(deps, { ...range, ...tenant }) };
    ctx.body = body;
  });
  return router;
}
