import type { Handlers, RouteHandler } from '../http/route-table.ts';
import type { Context, Next } from 'koa';
import { timingSafeEqual, createHash } from 'node:crypto';
import {
  ApiKeyCreateBody,
  ApiKeyRotateBody,
  S3ConnectionCreateBody,
  S3ConnectionUpdateBody,
  TenantCreateBody,
  TenantPlanBody,
} from '@pressroom/schemas';
import { PressroomError, notFound } from '@pressroom/domain';
import {
  changePlan,
  createApiKey,
  createTenant,
  deleteS3Connection,
  eventKey,
  listApiKeys,
  listS3Connections,
  registerS3Connection,
  revokeApiKey,
  rotateApiKey,
  updateS3Connection,
  type EventLog,
  type S3ConnectionDeps,
  type TopicNames,
} from '@pressroom/core';
import { bodyParser } from '../http/validate.ts';
import { bearer } from '../http/auth.ts';
import { SHOWN_ONCE } from './key-routes.ts';

const parseTenant = bodyParser(TenantCreateBody);
const parsePlan = bodyParser(TenantPlanBody);
const parseKey = bodyParser(ApiKeyCreateBody);
const parseRotate = bodyParser(ApiKeyRotateBody);
const parseConnection = bodyParser(S3ConnectionCreateBody);
const parseConnectionUpdate = bodyParser(S3ConnectionUpdateBody);

/** The admin token check every admin route runs first (401 in the one error shape). */
export function adminAuthentication(adminToken: string): RouteHandler {
  const expected = createHash('sha256').update(adminToken).digest();
  return async (ctx: Context, next: Next) => {
    const given = createHash('sha256')
      .update(bearer(ctx) ?? '')
      .digest();
    if (!timingSafeEqual(given, expected)) throw new PressroomError('UNAUTHENTICATED', 'The admin token is not valid.');
    await next();
  };
}

type AdminOperation =
  | 'adminCreateTenant'
  | 'adminGetTenant'
  | 'adminChangePlan'
  | 'adminListApiKeys'
  | 'adminIssueApiKey'
  | 'adminRevokeApiKey'
  | 'adminRotateApiKey'
  | 'adminListS3Connections'
  | 'adminRegisterS3Connection'
  | 'adminUpdateS3Connection'
  | 'adminDeleteS3Connection'
  | 'adminReadEvents';

/**
 * Operator-only API under /admin/v1, guarded by PRESSROOM_ADMIN_TOKEN. Absent (404) when
 * no token is configured. The key and S3 connection routes do what the tenant's own
 * `/v1/keys` and `/v1/s3-connections` do, for any tenant (and a connection regardless of plan).
 */
/** The S3 connection actions' dependencies (they are the widest), plus the log (the operator's log export reads it). */
export function adminRoutes(deps: S3ConnectionDeps & { log: EventLog; topics: TopicNames }): Handlers<AdminOperation> {
  /** The tenant of the path, or 404. */
  const tenantIn = async (ctx: Context): Promise<string> => {
    const tenantId = (ctx.params as Record<string, string>).tenantId ?? '';
    const tenant = await deps.catalog.getTenant(tenantId);
    if (!tenant) throw notFound(`Tenant ${tenantId}`);
    return tenant.tenantId;
  };
  const param = (ctx: Context, name: string) => (ctx.params as Record<string, string>)[name] ?? '';

  return {
    adminCreateTenant: async (ctx) => {
      const body = parseTenant(ctx.request.body);
      const tenant = await createTenant(deps, body);
      ctx.status = 201;
      ctx.body = tenant;
    },
    adminGetTenant: async (ctx) => {
      ctx.body = await deps.catalog.getTenant(await tenantIn(ctx));
    },
    adminChangePlan: async (ctx) => {
      const tenantId = await tenantIn(ctx);
      ctx.body = await changePlan(deps, tenantId, parsePlan(ctx.request.body).plan);
    },
    adminListApiKeys: async (ctx) => {
      ctx.body = { keys: await listApiKeys(deps, await tenantIn(ctx)) };
    },
    adminIssueApiKey: async (ctx) => {
      const tenantId = await tenantIn(ctx);
      const body = parseKey(ctx.request.body ?? {});
      const created = await createApiKey(deps, tenantId, {
        label: body.label ?? 'admin',
        ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
      });
      ctx.status = 201;
      ctx.body = { tenantId, ...created, note: SHOWN_ONCE };
    },
    adminRevokeApiKey: async (ctx) => {
      ctx.body = await revokeApiKey(deps, await tenantIn(ctx), param(ctx, 'keyId'));
    },
    adminRotateApiKey: async (ctx) => {
      const tenantId = await tenantIn(ctx);
      const body = parseRotate(ctx.request.body ?? {});
      ctx.status = 201;
      ctx.body = { ...(await rotateApiKey(deps, tenantId, param(ctx, 'keyId'), body.overlapSeconds)), note: SHOWN_ONCE };
    },
    adminListS3Connections: async (ctx) => {
      ctx.body = { connections: await listS3Connections(deps, await tenantIn(ctx)) };
    },
    adminRegisterS3Connection: async (ctx) => {
      const tenantId = await tenantIn(ctx);
      const body = parseConnection(ctx.request.body);
      ctx.status = 201;
      ctx.body = await registerS3Connection(deps, tenantId, body, 'operator');
    },
    adminUpdateS3Connection: async (ctx) => {
      const tenantId = await tenantIn(ctx);
      const body = parseConnectionUpdate(ctx.request.body);
      ctx.body = await updateS3Connection(deps, tenantId, param(ctx, 'connectionId'), body, 'operator');
    },
    adminDeleteS3Connection: async (ctx) => {
      await deleteS3Connection(deps, await tenantIn(ctx), param(ctx, 'connectionId'));
      ctx.status = 204;
    },
    /**
     * The log, for audit (what `ops events` prints), as JSON lines: `?request=<key>` and `?type=<EventType>`
     * filter it. Lets the embedded CLI read the log while the service holds it.
     */
    adminReadEvents: async (ctx) => {
      const request = typeof ctx.query.request === 'string' ? ctx.query.request : undefined;
      const type = typeof ctx.query.type === 'string' ? ctx.query.type : undefined;
      const t = deps.topics;
      const lines: string[] = [];
      await deps.log.readAll([t.requestedSync, t.requestedAsync, t.completed, t.webhooks, t.templates, t.catalog], (r) => {
        if (request !== undefined && eventKey(r.event) !== request) return;
        if (type !== undefined && r.event.type !== type) return;
        lines.push(JSON.stringify({ topic: r.topic, partition: r.partition, offset: r.offset, event: r.event }) + '\n');
      });
      ctx.type = 'application/x-ndjson';
      ctx.body = lines.join('');
    },
  };
}
