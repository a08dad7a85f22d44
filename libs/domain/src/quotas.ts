/**
 * Quotas of a plan and the pure decisions that enforce them at the door: the token bucket of a
 * key's request rate, the admission of renders in flight per tenant, and back-pressure on the
 * async lane. The adapters (in-process, Redis) only store state; every decision is made here
 * (the Redis Lua script mirrors `takeToken` line by line; its int test checks it agrees).
 */

/** What a plan allows; one per plan name, from configuration (PRESSROOM_PLANS). */
export interface PlanLimits {
  /** Requests per second per API key (the token bucket's refill rate). */
  requestsPerSecond: number;
  /** Requests a key may send at once after being idle (the bucket's size). */
  burst: number;
  /** Renders accepted and not yet finished, per tenant, over every ingress (sync and async). */
  concurrentRenders: number;
  /** Most items in one batch request. */
  batchMaxItems: number;
  /** Largest PNG, in pixels (width x height). */
  pngMaxPixels: number;
  /** Most pages of a PNG render (the sheets stacked into one image). */
  pngMaxPages: number;
  /**
   * How long our storage keeps a render's files, previews, tool outputs and stored request
   * payload: a duration (`30d`, `12h`, `2s`) or `forever` (retention.ts reads it).
   */
  retention: string;
  /**
   * Identical renders of this plan's tenants are served from the render cache (a copy of an
   * earlier file of the same tenant, no Chromium). Absent: off.
   */
  renderCache?: boolean;
}

/** A token bucket's stored state: tokens left at `atMs`. */
export interface BucketState {
  tokens: number;
  atMs: number;
}

export interface RatePolicy {
  requestsPerSecond: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Whole requests left right after this one (0 when refused). */
  remaining: number;
  /** Seconds until the bucket is full again (the `t` of the RateLimit header). */
  resetSeconds: number;
  /** When refused: seconds until one request is allowed (Retry-After), at least 1. */
  retryAfterSeconds: number;
  /** The state to store. */
  next: BucketState;
}

/**
 * One request against a token bucket: `burst` tokens at most, refilled at `requestsPerSecond`;
 * a request takes one token or is refused (and takes nothing). A missing state is a full bucket.
 * A clock that went backwards (another ingress's) refills nothing rather than draining.
 */
export function takeToken(state: BucketState | undefined, policy: RatePolicy, nowMs: number): RateDecision {
  const rate = policy.requestsPerSecond / 1000;
  const elapsed = state ? Math.max(0, nowMs - state.atMs) : 0;
  const tokens = state ? Math.min(policy.burst, state.tokens + elapsed * rate) : policy.burst;
  const allowed = tokens >= 1;
  const left = allowed ? tokens - 1 : tokens;
  return {
    allowed,
    remaining: Math.floor(left),
    resetSeconds: Math.ceil((policy.burst - left) / policy.requestsPerSecond),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - left) / policy.requestsPerSecond)),
    next: { tokens: left, atMs: Math.max(nowMs, state?.atMs ?? nowMs) },
  };
}

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers, structured-field form):
 * `RateLimit-Policy: "per-key";q=<burst>;w=<seconds to refill a full bucket>` and
 * `RateLimit: "per-key";r=<remaining>;t=<seconds until the bucket is full>`.
 */
export function rateLimitHeaders(policy: RatePolicy, decision: Pick<RateDecision, 'remaining' | 'resetSeconds'>): Record<string, string> {
  const window = Math.max(1, Math.ceil(policy.burst / policy.requestsPerSecond));
  return {
    'RateLimit-Policy': `"per-key";q=${policy.burst};w=${window}`,
    RateLimit: `"per-key";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

/** Seconds a caller refused for concurrency or back-pressure is told to wait: renders take seconds. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * Whether `count` more renders of a tenant may be accepted with `inFlight` already accepted and
 * not finished. A request larger than the whole cap (a batch) is admitted when nothing else is in
 * flight, so a plan's batch size never exceeds what it can ever send.
 */
export function admitsConcurrent(inFlight: number, count: number, cap: number): boolean {
  if (inFlight + count <= cap) return true;
  return inFlight === 0 && count > cap;
}

/** Whether the async lane takes another request: refused once its backlog reached `maxDepth` (0: never refused). */
export function asyncLaneOpen(backlog: number | undefined, maxDepth: number): boolean {
  if (maxDepth <= 0 || backlog === undefined) return true;
  return backlog < maxDepth;
}

/**
 * How many pages a PNG render stacks: a PNG is the full-page capture of the document, so what
 * would print on several sheets becomes one tall image. Its pages are its height over the sheet's
 * (a part of a sheet counts as one; a rounding pixel does not).
 */
export function pngPageCount(contentHeightPx: number, sheetHeightPx: number): number {
  if (sheetHeightPx <= 0) return 1;
  return Math.max(1, Math.ceil(Math.floor(contentHeightPx) / Math.ceil(sheetHeightPx)));
}

/**
 * The plan's pngMaxPages for a laid-out PNG: undefined when within it, else the reason naming
 * the rule (the render fails OUTPUT_TOO_LARGE with it, before Chromium captures anything).
 */
export function pngPagesRefusal(args: {
  contentHeightPx: number;
  sheetHeightPx: number;
  maxPages: number | undefined;
}): string | undefined {
  if (args.maxPages === undefined) return undefined;
  const pages = pngPageCount(args.contentHeightPx, args.sheetHeightPx);
  if (pages <= args.maxPages) return undefined;
  return (
    `The PNG would stack ${pages} pages (${Math.floor(args.contentHeightPx)} px tall, ${Math.ceil(args.sheetHeightPx)} px a page), ` +
    `over your plan's pngMaxPages of ${args.maxPages}. Shorten the document or render a PDF.`
  );
}
