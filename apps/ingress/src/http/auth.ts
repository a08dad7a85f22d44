import type { Context, Next } from 'koa';
import { PressroomError } from '@pressroom/domain';
import { hashApiKey, type Catalog, type Tenant } from '@pressroom/core';

export interface AuthState {
  tenant: Tenant;
  /** The hash of the API key the request came with: what its rate bucket is keyed on. */
  keyHash: string;
}

/** `Authorization: Bearer <key>`; only the key's hash is looked up. */
export function requireApiKey(catalog: Catalog) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const key = bearer(ctx);
    if (!key) throw new PressroomError('UNAUTHENTICATED', 'Send your API key as "Authorization: Bearer <key>".');
    const keyHash = hashApiKey(key);
    const record = await catalog.findApiKey(keyHash);
    const tenant = record && (await catalog.getTenant(record.tenantId));
    if (!tenant) throw new PressroomError('UNAUTHENTICATED', 'The API key is not valid.');
    (ctx.state as AuthState).tenant = tenant;
    (ctx.state as AuthState).keyHash = keyHash;
    await next();
  };
}

export function bearer(ctx: Context): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return m?.[1];
}

export function tenantOf(ctx: Context): Tenant {
  return (ctx.state as AuthState).tenant;
}
