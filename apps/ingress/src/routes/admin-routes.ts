import Router from '@koa/router';
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
import { PressroomError, notFound, type S3EndpointPolicy } from '@pressroom/domain';
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
  type ArtifactStorage,
  type Catalog,
  type CatalogCommands,
  type Clock,
  type EventLog,
  type Ids,
  type SecretBox,
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

/**
 * Operator-only API under /admin/v1, guarded by PRESSROOM_ADMIN_TOKEN. Absent (404) when
 * no token is configured. The key and S3 connection routes do what the tenant's own
 * `/v1/keys` and `/v1/s3-connections` do, for any tenant (and a connection regardless of plan).
 */
export function adminRoutes(deps: {
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  ids: Ids;
  clock: Clock;
  secrets: SecretBox;
  storage: Pick<ArtifactStorage, 'testConnection'>;
  log: EventLog;
  topics: TopicNames;
  adminToken: string;
  /** The address rule for tenant S3 endpoints (see registerS3Connection). */
  s3Endpoints: S3EndpointPolicy;
}): Router {
  const router = new Router({ prefix: '/admin/v1' });
  const expected = createHash('sha256').update(deps.adminToken).digest();

  router.use(async (ctx: Context, next: Next) => {
    const given = createHash('sha256')
      .update(bearer(ctx) ?? '')
      .digest();
    if (!timingSafeEqual(given, expected)) throw new PressroomError('UNAUTHENTICATED', 'The admin token is not valid.');
    await next();
  });

  /** The tenant of the path, or 404. */
  const tenantIn = async (ctx: Context): Promise<string> => {
    const tenant = await deps.catalog.getTenant((ctx.params as Record<string, string>).tenantId ?? '');
    if (!tenant) throw notFound(`Tenant ${(ctx.params as Record<string, string>).tenantId}`);
    return tenant.tenantId;
  };

  router.post('/tenants', async (ctx) => {
    const body = parseTenant(ctx.request.body);
    const tenant = await createTenant(deps, body);
    ctx.status = 201;
    ctx.body = tenant;
  });

  router.get('/tenants/:tenantId', async (ctx) => {
    ctx.body = await deps.catalog.getTenant(await tenantIn(ctx));
  });

  router.put('/tenants/:tenantId/plan', async (ctx) => {
    const tenantId = await tenantIn(ctx);
    ctx.body = await changePlan(deps, tenantId, parsePlan(ctx.request.body).plan);
  });

  router.get('/tenants/:tenantId/keys', async (ctx) => {
    ctx.body = { keys: await listApiKeys(deps, await tenantIn(ctx)) };
  });

  router.post('/tenants/:tenantId/keys', async (ctx) => {
    const tenantId = await tenantIn(ctx);
    const body = parseKey(ctx.request.body ?? {});
    const created = await createApiKey(deps, tenantId, {
      label: body.label ?? 'admin',
      ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
    });
    ctx.status = 201;
    ctx.body = { tenantId, ...created, note: SHOWN_ONCE };
  });

  router.post('/tenants/:tenantId/keys/:keyId/revoke', async (ctx) => {
    ctx.body = await revokeApiKey(deps, await tenantIn(ctx), ctx.params.keyId ?? '');
  });

  router.post('/tenants/:tenantId/keys/:keyId/rotate', async (ctx) => {
    const tenantId = await tenantIn(ctx);
    const body = parseRotate(ctx.request.body ?? {});
    ctx.status = 201;
    ctx.body = { ...(await rotateApiKey(deps, tenantId, ctx.params.keyId ?? '', body.overlapSeconds)), note: SHOWN_ONCE };
  });

  router.get('/tenants/:tenantId/s3-connections', async (ctx) => {
    ctx.body = { connections: await listS3Connections(deps, await tenantIn(ctx)) };
  });

  router.post('/tenants/:tenantId/s3-connections', async (ctx) => {
    const tenantId = await tenantIn(ctx);
    const body = parseConnection(ctx.request.body);
    ctx.status = 201;
    ctx.body = await registerS3Connection(deps, tenantId, body, 'operator');
  });

  router.put('/tenants/:tenantId/s3-connections/:connectionId', async (ctx) => {
    const tenantId = await tenantIn(ctx);
    const body = parseConnectionUpdate(ctx.request.body);
    ctx.body = await updateS3Connection(deps, tenantId, ctx.params.connectionId ?? '', body, 'operator');
  });

  router.delete('/tenants/:tenantId/s3-connections/:connectionId', async (ctx) => {
    await deleteS3Connection(deps, await tenantIn(ctx), ctx.params.connectionId ?? '');
    ctx.status = 204;
  });

  /**
   * The log, for audit (what `ops events` prints), as JSON lines: `?request=<key>` and `?type=<EventType>`
   * filter it. Lets the embedded CLI read the log while the service holds it.
   */
  router.get('/events', async (ctx) => {
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
  });

  return router;
}
