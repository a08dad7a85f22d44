import type { Context, Next } from 'koa';
import type { ApiKeyScope } from '@pressroom/schemas';
import { PressroomError, keyAuthenticates, scopesOf, shouldRecordKeyUse } from '@pressroom/domain';
import { hashApiKey, type Catalog, type Clock, type Logger, type Tenant } from '@pressroom/core';

export interface AuthState {
  tenant: Tenant;
  /** The hash of the API key the request came with: what its rate bucket is keyed on. */
  keyHash: string;
  /** The key the request came with: its public id (for logs) and what it may do. */
  apiKey: { keyId: string; scopes: readonly ApiKeyScope[] };
}

/** Past this many keys seen, the per-process "last written" memory starts again (it only throttles). */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * `Authorization: Bearer <key>`; only the key's hash is looked up, in the catalog view every
 * ingress reads (no cache in front of it), so a revocation applied to the view refuses the key
 * on every ingress from the next request. Revoked, expired (a rotated key past its overlap) and
 * unknown keys get the same 401. A key's "last used" is written to the view at most once a
 * minute per process, off the request's path: never a log append per request.
 */
export function requireApiKey(catalog: Catalog, opts: { clock: Clock; logger?: Logger }) {
  const lastWritten = new Map<string, number>();
  return async (ctx: Context, next: Next): Promise<void> => {
    const key = bearer(ctx);
    if (!key) throw new PressroomError('UNAUTHENTICATED', 'Send your API key as "Authorization: Bearer <key>".');
    const keyHash = hashApiKey(key);
    const record = await catalog.findApiKey(keyHash);
    const now = opts.clock.now();
    const tenant = record && keyAuthenticates(record, now) ? await catalog.getTenant(record.tenantId) : undefined;
    if (!record || !tenant) throw new PressroomError('UNAUTHENTICATED', 'The API key is not valid.');
    (ctx.state as AuthState).tenant = tenant;
    (ctx.state as AuthState).keyHash = keyHash;
    (ctx.state as AuthState).apiKey = { keyId: record.keyId, scopes: scopesOf(record) };
    // A record written by a version before key ids (a Redis view not yet rebuilt) has no id to record the use under.
    if (record.keyId && shouldRecordKeyUse(lastWritten.get(record.keyId), now.getTime())) {
      if (lastWritten.size >= MAX_REMEMBERED_KEYS) lastWritten.clear();
      lastWritten.set(record.keyId, now.getTime());
      catalog.recordKeyUse(tenant.tenantId, record.keyId, now.toISOString()).catch((err: unknown) => {
        opts.logger?.warn('could not record the use of an API key', { keyId: record.keyId, error: String(err) });
      });
    }
    await next();
  };
}

/** Refuses (403) a key without `scope`; keys issued before scopes existed have every scope. */
export function requireScope(scope: ApiKeyScope) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const key = (ctx.state as Partial<AuthState>).apiKey;
    if (!key?.scopes.includes(scope)) {
      throw new PressroomError('FORBIDDEN', `This API key lacks the ${scope} scope; use a key that has it.`, {
        details: [{ field: 'scopes', message: `must include ${scope}` }],
      });
    }
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
