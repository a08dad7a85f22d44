import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { BATCH_MAX_ITEMS, RETENTION_PATTERN, retentionPolicy, type PlanLimits } from '@pressroom/domain';
import { Int, slice } from './setting.ts';

/** What each plan allows unless PRESSROOM_PLANS says otherwise. */
export const DEFAULT_PLANS: Record<'standard' | 'high', PlanLimits> = {
  standard: {
    requestsPerSecond: 25,
    burst: 50,
    concurrentRenders: 20,
    batchMaxItems: 20,
    pngMaxPixels: 25_000_000,
    pngMaxPages: 20,
    retention: '30d',
    renderCache: false,
  },
  high: {
    requestsPerSecond: 100,
    burst: 200,
    concurrentRenders: 100,
    batchMaxItems: 20,
    pngMaxPixels: 25_000_000,
    pngMaxPages: 100,
    retention: '90d',
    renderCache: false,
  },
};

const Positive = Type.Number({ exclusiveMinimum: 0 });
const Count = Type.Integer({ minimum: 1 });
const PlanOverride = Type.Object(
  {
    requestsPerSecond: Type.Optional(Positive),
    burst: Type.Optional(Count),
    concurrentRenders: Type.Optional(Count),
    // The API's own batch limit (BATCH_MAX_ITEMS) is the most any plan can have.
    batchMaxItems: Type.Optional(Type.Integer({ minimum: 1, maximum: BATCH_MAX_ITEMS })),
    pngMaxPixels: Type.Optional(Count),
    pngMaxPages: Type.Optional(Count),
    retention: Type.Optional(Type.String({ pattern: RETENTION_PATTERN })),
    renderCache: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const PlansOverride = Type.Object(
  { standard: Type.Optional(PlanOverride), high: Type.Optional(PlanOverride) },
  { additionalProperties: false },
);
const checkPlans = Compile(PlansOverride);

const defaultsText = (['standard', 'high'] as const)
  .map(
    (p) =>
      `${p}: ${Object.entries(DEFAULT_PLANS[p])
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
  )
  .join('; ');

/** Plans as configuration: the quotas of each plan, and the async lane's back-pressure. */
export const plansSlice = slice({
  env: {
    PRESSROOM_PLANS: Type.String({
      default: '',
      description:
        'Quotas per plan, as JSON overriding the defaults member by member, e.g. `{"standard":{"requestsPerSecond":5,"burst":10}}`. ' +
        'Members: requestsPerSecond and burst (token bucket per API key; 429 RATE_LIMITED), concurrentRenders (renders accepted and not finished per tenant, sync and async, over every ingress; 429 CONCURRENCY_LIMITED), ' +
        `batchMaxItems (at most ${BATCH_MAX_ITEMS}; 413 PLAN_LIMIT_EXCEEDED above), pngMaxPixels (a larger PNG fails OUTPUT_TOO_LARGE; PRESSROOM_RENDER_MAX_PNG_PIXELS still caps every plan), pngMaxPages (most sheets a PNG render stacks into its one image; a taller PNG fails OUTPUT_TOO_LARGE naming it), renderCache (true: an identical render of the same tenant is served as a copy of its earlier file, without Chromium; a request opts out with "cache": false), retention (how long our storage keeps a render's files, previews, tool outputs and request payload: a duration with unit s, m, h, d, or forever; the one retention setting). Defaults: ${defaultsText}.`,
    }),
    PRESSROOM_ASYNC_BACKLOG_MAX: Int(
      'Async render requests waiting (not yet taken by the render workers) above which new async requests get 429 BACKLOG_FULL; 0: never. Sync requests are never refused for it.',
      10_000,
      0,
    ),
    PRESSROOM_BACKLOG_REFRESH_MS: Int(
      'How often the ingress reads the async lane’s backlog (in the background; requests read the last value).',
      1000,
      50,
    ),
    PRESSROOM_RETENTION_SWEEP_INTERVAL_MS: Int(
      "How often the retention sweeper lists our own storage for renders older than their plan's retention (status projector; in one process, the standalone).",
      60000,
      100,
    ),
    PRESSROOM_RENDER_LEASE_MS: Int(
      'How long a render counts against its tenant’s concurrentRenders when its outcome is never seen (a crashed process): the count heals itself after it.',
      15 * 60_000,
      1000,
    ),
  },
  read(c) {
    return {
      /** Each plan's quotas: the defaults with PRESSROOM_PLANS over them. */
      plans: plansFrom(c.PRESSROOM_PLANS),
      /** Retention, from the plans: what the sweeper removes, and how often it looks. */
      retention: {
        files: retentionPolicy(plansFrom(c.PRESSROOM_PLANS)),
        sweepIntervalMs: Number(c.PRESSROOM_RETENTION_SWEEP_INTERVAL_MS),
      },
      /** Back-pressure on the async lane and the lease of an in-flight render. */
      admission: {
        asyncBacklogMax: Number(c.PRESSROOM_ASYNC_BACKLOG_MAX),
        backlogRefreshMs: Number(c.PRESSROOM_BACKLOG_REFRESH_MS),
        renderLeaseMs: Number(c.PRESSROOM_RENDER_LEASE_MS),
      },
    };
  },
});

/** Problems of PRESSROOM_PLANS, checked with the other settings before any slice reads them. */
export function plansProblems(text: string | undefined): string[] {
  try {
    plansFrom(text ?? '');
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/**
 * Settings that no longer exist and would now contradict the plans: refused at start with what
 * replaces them, rather than silently ignored (an operator who set them expects them to act).
 */
export function retiredSettingsProblems(env: Record<string, string | undefined>): string[] {
  return env.PRESSROOM_RETENTION_FILES
    ? [
        'PRESSROOM_RETENTION_FILES: retention is now set per plan in PRESSROOM_PLANS (e.g. {"standard":{"retention":"7d"},"high":{"retention":"30d"}}); remove PRESSROOM_RETENTION_FILES.',
      ]
    : [];
}

/** The plans from PRESSROOM_PLANS (JSON, each member optional) over DEFAULT_PLANS; throws naming the problem. */
export function plansFrom(text: string): Record<'standard' | 'high', PlanLimits> {
  if (!text.trim()) return DEFAULT_PLANS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('PRESSROOM_PLANS: is not valid JSON');
  }
  for (const plan of Object.values((parsed ?? {}) as Record<string, unknown>)) {
    if (plan && typeof plan === 'object' && 'retentionDays' in plan)
      throw new Error(
        'PRESSROOM_PLANS: retentionDays is now retention, a duration (e.g. "retention":"30d"; units s, m, h, d; or "forever")',
      );
  }
  if (!checkPlans.Check(parsed)) {
    const problems = [...checkPlans.Errors(parsed)].map((e) => `${e.instancePath || '(root)'} ${e.message}`);
    throw new Error(`PRESSROOM_PLANS: ${problems.join('; ')}`);
  }
  const over = parsed;
  return {
    standard: { ...DEFAULT_PLANS.standard, ...over.standard },
    high: { ...DEFAULT_PLANS.high, ...over.high },
  };
}
