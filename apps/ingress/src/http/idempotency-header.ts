import type { Context } from 'koa';
import { idempotencyKeyProblem, validationError } from '@pressroom/domain';

/** The request's Idempotency-Key header, checked (400 VALIDATION_FAILED when malformed); none when absent. */
export function idempotencyOf(ctx: Context): { idempotencyKey?: string } {
  if (!('idempotency-key' in ctx.headers)) return {};
  const key = ctx.get('Idempotency-Key');
  const problem = idempotencyKeyProblem(key);
  if (problem) throw validationError([problem]);
  return { idempotencyKey: key };
}
