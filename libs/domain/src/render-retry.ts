/**
 * What the render worker does after one attempt at a render failed. Most failures are the
 * outcome of the render (a template error, a timeout) and are recorded as they are. A renderer
 * that crashed or stopped answering says nothing about the request: it may have been another
 * job's fault, or an accident (the OOM killer), so the render is tried again a few times; a
 * request that takes the renderer down on every attempt is a poison message and is recorded as
 * RENDER_CRASHED, so that the log moves on instead of replaying it forever. Pure: the caller
 * measures and waits.
 */
export interface RenderRetryPolicy {
  /** Further attempts after the first one crashed (0: record the first crash). */
  crashRetries: number;
  /** Delay before the first retry; it doubles for each further one… */
  baseDelayMs: number;
  /** …up to this cap. */
  maxDelayMs: number;
}

export const DEFAULT_RENDER_RETRY_POLICY: RenderRetryPolicy = { crashRetries: 2, baseDelayMs: 1_000, maxDelayMs: 10_000 };

export type RenderAttemptDecision =
  { outcome: 'record' } | { outcome: 'retry'; delayMs: number } | { outcome: 'record-crash'; message: string };

/**
 * Before attempt number `attempt` (1-based, counting the attempts already recorded on the log
 * for this request, by any worker): past the bound, the request is not rendered again but
 * recorded as RENDER_CRASHED. This is what bounds a request that kills the whole worker process
 * (not only its renderer), where no one is left to count the crash as it happens.
 */
export function decideBeforeRenderAttempt(args: {
  attempt: number;
  policy: RenderRetryPolicy;
}): { outcome: 'render' } | { outcome: 'record-crash'; message: string } {
  const done = args.attempt - 1;
  if (done <= args.policy.crashRetries) return { outcome: 'render' };
  return { outcome: 'record-crash', message: crashMessage(done) };
}

/**
 * After attempt number `attempt` (1-based) ended with a failure of `code`: a crash is retried
 * while retries remain, then recorded as RENDER_CRASHED; any other failure is recorded as is.
 */
export function decideAfterRenderAttempt(args: { code: string; attempt: number; policy: RenderRetryPolicy }): RenderAttemptDecision {
  const { code, attempt, policy } = args;
  if (code !== 'RENDER_CRASHED') return { outcome: 'record' };
  if (attempt <= policy.crashRetries) {
    return { outcome: 'retry', delayMs: Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) };
  }
  return { outcome: 'record-crash', message: crashMessage(attempt) };
}

function crashMessage(attempts: number): string {
  const tries = attempts === 1 ? 'its only attempt' : `each of ${attempts} attempts`;
  return `The renderer stopped during ${tries}; the request was not rendered.`;
}
