import type { Handlers } from '../http/route-table.ts';
import { ApiKeyCreateBody, ApiKeyRotateBody } from '@pressroom/schemas';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  type Catalog,
  type CatalogCommands,
  type Clock,
  type Ids,
} from '@pressroom/core';
import { bodyParser } from '../http/validate.ts';
import { tenantOf } from '../http/auth.ts';

const parseCreate = bodyParser(ApiKeyCreateBody);
const parseRotate = bodyParser(ApiKeyRotateBody);

export const SHOWN_ONCE = 'Store this key now: it is not shown again.';

/**
 * A tenant's own API keys (the `manage` scope, checked before these run: api-routes.ts): list (never a secret or a hash), create (the
 * key is shown once), revoke (at once) and rotate (the old key keeps working for an overlap).
 * Another tenant's key id answers 404 exactly like an unknown one.
 *
 *   GET  /v1/keys                      ApiKeyList
 *   POST /v1/keys                      ApiKeyCreateBody → 201 ApiKeyCreatedResponse
 *   POST /v1/keys/{keyId}/revoke       → 200 ApiKeySummary
 *   POST /v1/keys/{keyId}/rotate       ApiKeyRotateBody → 201 ApiKeyCreatedResponse (+ previous)
 */
export function keyRoutes(deps: {
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  ids: Ids;
  clock: Clock;
}): Handlers<'listKeys' | 'createKey' | 'revokeKey' | 'rotateKey'> {
  return {
    listKeys: async (ctx) => {
      ctx.body = { keys: await listApiKeys(deps, tenantOf(ctx).tenantId) };
    },
    createKey: async (ctx) => {
      const body = parseCreate(ctx.request.body ?? {});
      const created = await createApiKey(deps, tenantOf(ctx).tenantId, {
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
      });
      ctx.status = 201;
      ctx.body = { ...created, note: SHOWN_ONCE };
    },
    revokeKey: async (ctx) => {
      ctx.body = await revokeApiKey(deps, tenantOf(ctx).tenantId, ctx.params.keyId ?? '');
    },
    rotateKey: async (ctx) => {
      const body = parseRotate(ctx.request.body ?? {});
      const rotated = await rotateApiKey(deps, tenantOf(ctx).tenantId, ctx.params.keyId ?? '', body.overlapSeconds);
      ctx.status = 201;
      ctx.body = { ...rotated, note: SHOWN_ONCE };
    },
  };
}
