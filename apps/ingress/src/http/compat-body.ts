import type { Context } from 'koa';
import { validationError, type CompatRead } from '@pressroom/domain';

/** Response header listing the fields of a request that were ignored because no endpoint knows them. */
export const IGNORED_FIELDS_HEADER = 'Pressroom-Ignored-Fields';
/** Request header by which a caller asks for unknown fields to be refused (400) instead. */
export const STRICT_FIELDS_HEADER = 'Pressroom-Strict-Fields';

/**
 * The unknown-field policy of every body read leniently (render, tool and batch bodies): unknown
 * fields are ignored and named in Pressroom-Ignored-Fields, or refused with 400 when the caller
 * sends Pressroom-Strict-Fields: true. Returns the body to validate against its schema.
 */
export function applyUnknownFieldPolicy(ctx: Context, read: CompatRead): unknown {
  if (read.unknown.length) {
    if (ctx.get(STRICT_FIELDS_HEADER).trim().toLowerCase() === 'true') {
      throw validationError(read.unknown.map((field) => ({ field, message: 'is not a known field' })));
    }
    ctx.set(IGNORED_FIELDS_HEADER, read.unknown.join(', '));
  }
  return read.body;
}
