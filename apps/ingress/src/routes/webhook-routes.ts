import type { Handlers, RouteHandler } from '../http/route-table.ts';
import { WebhookReplayBody, type DeliveryView, type WebhookReplayResponse, type WebhookSecretResponse } from '@pressroom/schemas';
import { foldDelivery, notFound, validationError, webhookIdFor } from '@pressroom/domain';
import type { StatusView } from '@pressroom/core';
import {
  ensureWebhookSecrets,
  requestWebhookReplay,
  rotateWebhookSecret,
  type OpenWebhookSecrets,
  type WebhookReplayDeps,
  type WebhookSecretsDeps,
} from '@pressroom/webhooks';
import { bodyParser } from '../http/validate.ts';
import { tenantOf } from '../http/auth.ts';

const parseReplay = bodyParser(WebhookReplayBody);

export interface WebhookRoutesDeps extends WebhookSecretsDeps, WebhookReplayDeps {
  view: StatusView;
  secretOverlapMs: number;
}

/**
 * The tenant's webhook tools: its signing secret (created on first use) and rotation, the
 * record of every delivery of a request, and replays from the log.
 */
/** Whose webhooks a route acts on: the caller's tenant, or (the operator's API) the tenant of the path. */
type TenantOfRoute = (ctx: Parameters<RouteHandler>[0]) => Promise<string>;

/** The secret, rotation and replay handlers, for the tenant `tenantIdOf` names. */
function webhookTools(deps: WebhookRoutesDeps, tenantIdOf: TenantOfRoute, requestedBy: 'api' | 'ops') {
  const shown = (open: OpenWebhookSecrets): WebhookSecretResponse => {
    const previous = open.previous && Date.parse(open.previous.expiresAt) > deps.clock.now().getTime() ? open.previous : undefined;
    return { secret: open.secret, createdAt: open.createdAt, ...(previous ? { previous } : {}) };
  };

  const getSecret: RouteHandler = async (ctx) => {
    ctx.body = shown(await ensureWebhookSecrets(deps, await tenantIdOf(ctx)));
  };

  const rotateSecret: RouteHandler = async (ctx) => {
    ctx.body = shown(await rotateWebhookSecret(deps, await tenantIdOf(ctx), deps.secretOverlapMs));
  };

  const replay: RouteHandler = async (ctx) => {
    const tenantId = await tenantIdOf(ctx);
    const body = parseReplay(ctx.request.body);
    let selector: { requestId: string } | { fromMs: number; toMs: number };
    if ('requestId' in body) selector = { requestId: body.requestId };
    else {
      selector = { fromMs: Date.parse(body.from), toMs: Date.parse(body.to) };
      if (!(selector.fromMs < selector.toMs)) throw validationError([{ field: 'to', message: 'must be later than from' }]);
    }
    const result: WebhookReplayResponse = await requestWebhookReplay(deps, { tenantId, selector, requestedBy });
    ctx.status = 202;
    ctx.body = result;
  };
  return { getSecret, rotateSecret, replay };
}

/**
 * The operator's webhook tools for any tenant (`/admin/v1/tenants/{tenantId}/webhooks/…`): what the
 * ops CLI uses while the embedded service holds the data dir. An unknown tenant is 404.
 */
export function adminWebhookRoutes(
  deps: WebhookRoutesDeps,
): Handlers<'adminGetWebhookSecret' | 'adminRotateWebhookSecret' | 'adminReplayWebhooks'> {
  const tenantOfPath: TenantOfRoute = async (ctx) => {
    const tenantId = ctx.params.tenantId ?? '';
    if (!(await deps.catalog.getTenant(tenantId))) throw notFound(`Tenant ${tenantId}`);
    return tenantId;
  };
  const tools = webhookTools(deps, tenantOfPath, 'ops');
  return { adminGetWebhookSecret: tools.getSecret, adminRotateWebhookSecret: tools.rotateSecret, adminReplayWebhooks: tools.replay };
}

export function webhookRoutes(
  deps: WebhookRoutesDeps,
): Handlers<'getWebhookSecret' | 'rotateWebhookSecret' | 'replayWebhooks' | 'getDeliveries'> {
  const tools = webhookTools(deps, async (ctx) => tenantOf(ctx).tenantId, 'api');

  const getDeliveries: RouteHandler = async (ctx) => {
    const tenant = tenantOf(ctx);
    const requestId = ctx.params.requestId ?? '';
    const record = await deps.deliveries.get(requestId);
    if (record && record.tenantId === tenant.tenantId) {
      const state = foldDelivery(record);
      if (state.withdrawn) throw notFound(`Deliveries of ${requestId}`); // refused with 503: never issued
      ctx.body = state.view;
      return;
    }
    // An async request that has not finished yet: known, nothing delivered so far.
    const entry = await deps.view.get(requestId);
    if (!entry || entry.tenantId !== tenant.tenantId || entry.mode !== 'async') throw notFound(`Deliveries of ${requestId}`);
    const empty: DeliveryView = {
      requestId,
      tenantId: tenant.tenantId,
      webhookId: webhookIdFor(requestId),
      state: 'PENDING',
      round: 0,
      attempts: [],
      outcomes: [],
      replays: [],
    };
    ctx.body = empty;
  };

  return { getWebhookSecret: tools.getSecret, rotateWebhookSecret: tools.rotateSecret, replayWebhooks: tools.replay, getDeliveries };
}
