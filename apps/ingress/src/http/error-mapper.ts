import type { Context, Next } from 'koa';
import { PressroomError, type ErrorCode } from '@pressroom/domain';
import type { Logger } from '@pressroom/core';

/** The one place where error codes become HTTP statuses. */
const statusOf: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  LOG_UNAVAILABLE: 503,
  DEPENDENCY_UNAVAILABLE: 503,
  INTERNAL: 500,
};

export function sendError(ctx: Context, status: number, code: string, message: string, details?: unknown): void {
  ctx.status = status;
  // `message` also at the top: the official SDK of this API family shows only that one.
  ctx.body = { message, error: { code, message, ...(details ? { details } : {}) } };
}

/** Turns every failure into `{"error":{code,message,details?}}`; never a stack trace. */
export function errorMapper(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) sendError(ctx, 404, 'NOT_FOUND', 'No such endpoint.');
    } catch (err) {
      if (err instanceof PressroomError) {
        const status = statusOf[err.code];
        if (status === 503) ctx.set('Retry-After', '5');
        if (status >= 500) logger.error('request failed', { code: err.code, err: err.cause ?? err, path: ctx.path });
        return sendError(ctx, status, err.code, err.message, err.details);
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
