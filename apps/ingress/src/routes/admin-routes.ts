import type { Handlers, RouteHandler } from '../http/route-table.ts';
import type { Context, Next } from 'koa';
import { timingSafeEqual, createHash } from 'node:crypto';
import { S3ConnectionCreateBody, TenantCreateBody } from '@pressroom/schemas';
import { PressroomError, notFound, type S3EndpointPolicy } from '@pressroom/domain';
import {
  eventKey,
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
import { createTenant, issueApiKey, registerS3Connection } from '@pressroom/core';

const parseTenant = bodyParser(TenantCreateBody);
const parseConnection = bodyParser(S3ConnectionCreateBody);

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

/**
 * Operator-only API under /admin/v1, guarded by PRESSROOM_ADMIN_TOKEN. Absent (404) when
 * no token is configured. Tenants will manage their own S3 connections in a later version.
 */
export function adminRoutes(deps: {
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  ids: Ids;
  clock: Clock;
  secrets: SecretBox;
  log: EventLog;
  topics: TopicNames;
  /** The address rule for tenant S3 endpoints (see registerS3Connection). */
  s3Endpoints: S3EndpointPolicy;
}): Handlers<'adminCreateTenant' | 'adminIssueApiKey' | 'adminRegisterS3Connection' | 'adminReadEvents'> {
  const adminCreateTenant: RouteHandler = async (ctx) => {
    const body = parseTenant(ctx.request.body);
    const tenant = await createTenant(deps, body);
    ctx.status = 201;
    ctx.body = tenant;
  };

  const adminIssueApiKey: RouteHandler = async (ctx) => {
    const tenant = await deps.catalog.getTenant(ctx.params.tenantId ?? '');
    if (!tenant) throw notFound(`Tenant ${ctx.params.tenantId}`);
    const label =
      typeof (ctx.request.body as { label?: unknown } | undefined)?.label === 'string'
        ? String((ctx.request.body as { label: string }).label)
        : 'admin';
    const apiKey = await issueApiKey(deps, tenant.tenantId, label);
    ctx.status = 201;
    ctx.body = { tenantId: tenant.tenantId, apiKey, note: 'Store this key now: it is not shown again.' };
  };

  const adminRegisterS3Connection: RouteHandler = async (ctx) => {
    const tenant = await deps.catalog.getTenant(ctx.params.tenantId ?? '');
    if (!tenant) throw notFound(`Tenant ${ctx.params.tenantId}`);
    const body = parseConnection(ctx.request.body);
    const connection = await registerS3Connection(deps, tenant.tenantId, body);
    ctx.status = 201;
    ctx.body = connection;
  };

  /**
   * The log, for audit (what `ops events` prints), as JSON lines: `?request=<key>` and `?type=<EventType>`
   * filter it. Lets the embedded CLI read the log while the service holds it.
   */
  const adminReadEvents: RouteHandler = async (ctx) => {
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
  };

  return { adminCreateTenant, adminIssueApiKey, adminRegisterS3Connection, adminReadEvents };
}
