import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { BATCH_MAX_ITEMS, type PlanLimits } from '@pressroom/domain';
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
    retentionDays: 30,
  },
  high: {
    requestsPerSecond: 100,
    burst: 200,
    concurrentRenders: 100,
    batchMaxItems: 20,
    pngMaxPixels: 25_000_000,
    pngMaxPages: 100,
    retentionDays: 90,
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
    retentionDays: Type.Optional(Type.Integer({ minimum: 0 })),
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
        `batchMaxItems (at most ${BATCH_MAX_ITEMS}; 413 PLAN_LIMIT_EXCEEDED above), pngMaxPixels (a larger PNG fails OUTPUT_TOO_LARGE; PRESSROOM_RENDER_MAX_PNG_PIXELS still caps every plan), and, declared for later work: pngMaxPages, retentionDays (0: forever). Defaults: ${defaultsText}.`,
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

/** The plans from PRESSROOM_PLANS (JSON, each member optional) over DEFAULT_PLANS; throws naming the problem. */
export function plansFrom(text: string): Record<'standard' | 'high', PlanLimits> {
  if (!text.trim()) return DEFAULT_PLANS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('PRESSROOM_PLANS: is not valid JSON');
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
