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
export function webhookRoutes(
  deps: WebhookRoutesDeps,
): Handlers<'getWebhookSecret' | 'rotateWebhookSecret' | 'replayWebhooks' | 'getDeliveries'> {
  const shown = (open: OpenWebhookSecrets): WebhookSecretResponse => {
    const previous = open.previous && Date.parse(open.previous.expiresAt) > deps.clock.now().getTime() ? open.previous : undefined;
    return { secret: open.secret, createdAt: open.createdAt, ...(previous ? { previous } : {}) };
  };

  const getWebhookSecret: RouteHandler = async (ctx) => {
    ctx.body = shown(await ensureWebhookSecrets(deps, tenantOf(ctx).tenantId));
  };

  const rotateWebhookSecretHandler: RouteHandler = async (ctx) => {
    ctx.body = shown(await rotateWebhookSecret(deps, tenantOf(ctx).tenantId, deps.secretOverlapMs));
  };

  const replayWebhooks: RouteHandler = async (ctx) => {
    const body = parseReplay(ctx.request.body);
    let selector: { requestId: string } | { fromMs: number; toMs: number };
    if ('requestId' in body) selector = { requestId: body.requestId };
    else {
      selector = { fromMs: Date.parse(body.from), toMs: Date.parse(body.to) };
      if (!(selector.fromMs < selector.toMs)) throw validationError([{ field: 'to', message: 'must be later than from' }]);
    }
    const result: WebhookReplayResponse = await requestWebhookReplay(deps, {
      tenantId: tenantOf(ctx).tenantId,
      selector,
      requestedBy: 'api',
    });
    ctx.status = 202;
    ctx.body = result;
  };

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

  return { getWebhookSecret, rotateWebhookSecret: rotateWebhookSecretHandler, replayWebhooks, getDeliveries };
}
