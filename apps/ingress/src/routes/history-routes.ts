import type { Handlers, RouteHandler } from '../http/route-table.ts';
import { notFound, validationError, type FieldProblem } from '@pressroom/domain';
import type { EventLog, TopicNames, Clock } from '@pressroom/core';
import { tenantOf } from '../http/auth.ts';
import { createHistory } from '../history.ts';
import { createHistoryReads, HISTORY_READS_AT_ONCE, HISTORY_READS_PER_TENANT } from '../history-reads.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_LIMIT = 1000;

/** One query parameter as a string (a repeated parameter is refused). */
function single(query: Record<string, string | string[] | undefined>, name: string, problems: FieldProblem[]): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) {
    problems.push({ field: name, message: 'must be given once' });
    return undefined;
  }
  return v;
}

/**
 * Render history from the log: every event of one render (`GET /v1/pdf/{requestId}/events`) and
 * the tenant's renders by time range and externalId (`GET /v1/renders`). Tenant-scoped: another
 * tenant's request is a 404 like an unknown one.
 */
export function historyRoutes(deps: { log: EventLog; topics: TopicNames; clock: Clock }): Handlers<'getRenderEvents' | 'listRenders'> {
  const history = createHistory(deps);
  // Each read goes through the log: a few at a time per process, a couple per tenant (history-reads.ts).
  const reads = createHistoryReads({ atOnce: HISTORY_READS_AT_ONCE, perTenant: HISTORY_READS_PER_TENANT });

  const getRenderEvents: RouteHandler = async (ctx) => {
    const requestId = ctx.params.requestId ?? '';
    const { tenantId } = tenantOf(ctx);
    const found = await reads.run(tenantId, () => history.ofRequest(tenantId, requestId));
    if (!found) throw notFound(`Render ${requestId}`);
    ctx.body = found;
  };

  const listRenders: RouteHandler = async (ctx) => {
    const problems: FieldProblem[] = [];
    const query = ctx.query;
    for (const name of Object.keys(query)) {
      if (!['from', 'to', 'externalId', 'after', 'limit'].includes(name))
        problems.push({ field: name, message: 'is not a known parameter' });
    }
    const time = (name: string): number | undefined => {
      const v = single(query, name, problems);
      if (v === undefined) return undefined;
      const ms = /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : NaN;
      if (Number.isNaN(ms)) problems.push({ field: name, message: 'must be an ISO 8601 date-time, e.g. 2026-11-21T00:00:00Z' });
      return ms;
    };
    const toMs = time('to') ?? deps.clock.now().getTime();
    const fromMs = time('from') ?? toMs - DAY_MS;
    if (!problems.length && !(fromMs < toMs)) problems.push({ field: 'from', message: 'must be before to' });
    const externalId = single(query, 'externalId', problems);
    if (externalId !== undefined && (externalId.length === 0 || externalId.length > 255))
      problems.push({ field: 'externalId', message: 'must be 1 to 255 characters' });
    const after = single(query, 'after', problems);
    if (after !== undefined && !/^[0-9a-f-]{1,64}$/.test(after)) problems.push({ field: 'after', message: 'must be a requestId' });
    const limitText = single(query, 'limit', problems);
    const limit = limitText === undefined ? 100 : /^\d{1,4}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) problems.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
    if (problems.length) throw validationError(problems);

    const { tenantId } = tenantOf(ctx);
    const page = await reads.run(tenantId, () =>
      history.list(tenantId, {
        fromMs,
        toMs,
        limit,
        ...(externalId !== undefined ? { externalId } : {}),
        ...(after !== undefined ? { after } : {}),
      }),
    );
    ctx.body = { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), ...page };
  };

  return { getRenderEvents, listRenders };
}
