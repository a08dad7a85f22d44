import type { Context } from 'koa';
import { usageRangeProblem, validationError } from '@pressroom/domain';
import type { Handlers } from '../http/route-table.ts';
import type { UsageResponse } from '@pressroom/schemas';
import type { UsageLedger } from '@pressroom/core';
import { tenantOf } from '../http/auth.ts';

/** The `from`/`to` of a usage query, checked (400 naming the problem). */
function rangeOf(ctx: Context): { from: string; to: string } {
  const { from, to } = ctx.query;
  const problem = usageRangeProblem(from, to);
  if (problem) throw validationError([{ field: 'from', message: problem }]);
  return { from: from as string, to: to as string };
}

/**
 * `GET /v1/usage?from=YYYY-MM-DD&to=YYYY-MM-DD`: the caller's own usage by day (UTC, both days
 * included): renders by outcome, pages, bytes and render seconds, from the log (the process's
 * UsageLedger: the records appended since the last call are folded, not the whole topic).
 */
export function usageRoutes(deps: { usage: UsageLedger }): Handlers<'getUsage'> {
  return {
    getUsage: async (ctx) => {
      const range = rangeOf(ctx);
      const body: UsageResponse = { ...range, days: await deps.usage.read({ ...range, tenantId: tenantOf(ctx).tenantId }) };
      ctx.body = body;
    },
  };
}

/**
 * `GET /admin/v1/usage?from=…&to=…[&tenant=…]`: every tenant's usage (or one's), for billing.
 * Operator only: mounted with the rest of /admin/v1 behind PRESSROOM_ADMIN_TOKEN.
 */
export function adminUsageRoutes(deps: { usage: UsageLedger }): Handlers<'adminGetUsage'> {
  return {
    adminGetUsage: async (ctx) => {
      const range = rangeOf(ctx);
      const tenant = typeof ctx.query.tenant === 'string' && ctx.query.tenant ? { tenantId: ctx.query.tenant } : {};
      const body: UsageResponse = { ...range, days: await deps.usage.read({ ...range, ...tenant }) };
      ctx.body = body;
    },
  };
}
