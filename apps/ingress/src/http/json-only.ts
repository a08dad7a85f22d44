import type { Context, Next } from 'koa';
import { PressroomError } from '@pressroom/domain';

/** All POST and PUT endpoints take JSON only (spec section 1). */
export async function jsonOnly(ctx: Context, next: Next): Promise<void> {
  if ((ctx.method === 'POST' || ctx.method === 'PUT') && !ctx.is('application/json')) {
    throw new PressroomError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
  await next();
}
