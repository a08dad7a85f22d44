import type { Context, Next } from 'koa';
import { failureFault, PressroomError, type ErrorCode } from '@pressroom/domain';
import type { Logger } from '@pressroom/core';

/** The one place where error codes (and, below, render failure codes) become HTTP statuses. */
const statusOf: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PLAN_FORBIDS_CUSTOM_S3: 403,
  S3_CONNECTION_TEST_FAILED: 422,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  LOG_UNAVAILABLE: 503,
  OUTCOME_UNKNOWN: 504,
  DEPENDENCY_UNAVAILABLE: 503,
  RATE_LIMITED: 429,
  CONCURRENCY_LIMITED: 429,
  BACKLOG_FULL: 429,
  HISTORY_BUSY: 429,
  PLAN_LIMIT_EXCEEDED: 413,
  INTERNAL: 500,
};

/**
 * The HTTP status of a render that failed while a sync caller waited: 422 when the request is at
 * fault (it was well-formed, but what it asks for cannot be rendered), 504 for the time limit,
 * 500 for our own failures.
 */
export function syncFailureStatus(code: string): 422 | 504 | 500 {
  const fault = failureFault(code);
  return fault === 'tenant' ? 422 : fault === 'timeout' ? 504 : 500;
}

export function sendError(ctx: Context, status: number, code: string, message: string, details?: unknown): void {
  ctx.status = status;
  // `message` also at the top, where the official SDK of this API family reads it (and shows
  // nothing else): with the details spelled out, so its users see what to fix.
  ctx.body = { message: withDetails(message, details), error: { code, message, ...(details ? { details } : {}) } };
}

/** "The request is invalid. data.name is required; pdfParams.scale must be <= 2" */
function withDetails(message: string, details: unknown): string {
  if (!Array.isArray(details) || details.length === 0) return message;
  const parts = details
    .slice(0, 10)
    .map((d: { field?: unknown; message?: unknown }) => `${String(d.field)} ${String(d.message)}`)
    .join('; ');
  return `${message} ${parts}${details.length > 10 ? '; …' : ''}`;
}

/** Facts as the caller reads them: a status path becomes the `statusUrl`, a requestId also goes in X-Request-Id. */
function factsFor(ctx: Context, facts: Record<string, string> | undefined, publicUrl = ''): Record<string, string> | undefined {
  if (!facts) return undefined;
  const { statusPath, ...rest } = facts;
  if (rest.requestId) ctx.set('X-Request-Id', rest.requestId);
  return statusPath === undefined ? rest : { ...rest, statusUrl: `${publicUrl}${statusPath}` };
}

/** Turns every failure into `{"error":{code,message,details?}}`; never a stack trace. */
export function errorMapper(logger: Logger, opts: { publicUrl?: string } = {}) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) sendError(ctx, 404, 'NOT_FOUND', 'No such endpoint.');
    } catch (err) {
      if (err instanceof PressroomError) {
        const status = statusOf[err.code];
        if (err.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(err.retryAfterSeconds));
        else if (status === 503 || err.code === 'OUTCOME_UNKNOWN') ctx.set('Retry-After', '5');
        if (status >= 500) logger.error('request failed', { code: err.code, err: err.cause ?? err, path: ctx.path });
        return sendError(ctx, status, err.code, err.message, err.details ?? factsFor(ctx, err.facts, opts.publicUrl));
      }
      const e = err as { status?: number; type?: string; expose?: boolean; message?: string };
      if (e.type === 'entity.too.large' || e.status === 413) {
        return sendError(ctx, 413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than this service accepts.');
      }
      if (e.status === 400 || e.type === 'entity.parse.failed') {
        return sendError(ctx, 400, 'MALFORMED_JSON', 'The request body is not valid JSON.');
      }
      if (e.status === 415) return sendError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
      logger.error('unhandled error', { err, path: ctx.path });
      sendError(ctx, 500, 'INTERNAL', 'Something went wrong on our side.');
    }
  };
}
