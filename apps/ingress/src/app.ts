import Koa from 'koa';
import Router from '@koa/router';
import type {
  ArtifactStorage,
  AssetStore,
  TemplateEventFactory,
  TemplateView,
  Catalog,
  CatalogCommands,
  Clock,
  DeliveryStore,
  EventFactory,
  EventLog,
  IdempotencyKeys,
  Ids,
  Logger,
  SecretBox,
  StatusView,
  TopicNames,
} from '@pressroom/core';
import { metricsAnswer, runReadiness, type Metrics, type MetricsExposure, type ReadinessCheck } from '@pressroom/observability';
import { BATCH_MAX_BODY_BYTES, type DoorLimits } from '@pressroom/domain';
import { createSchemaChecker } from './schema-validation/schema-checker.ts';
import { errorMapper } from './http/error-mapper.ts';
import { accessLog } from './http/access-log.ts';
import { jsonOnly } from './http/json-only.ts';
import { jsonBody } from './http/json-body.ts';
import { requireApiKey } from './http/auth.ts';
import { createRenderRequests } from './render-requests.ts';
import { createWithdrawals } from './withdrawals.ts';
import { renderRoutes } from './routes/render-routes.ts';
import { toolRoutes } from './routes/tool-routes.ts';
import { batchRoutes } from './routes/batch-routes.ts';
import { templateRoutes } from './routes/template-routes.ts';
import { assetRoutes } from './routes/asset-routes.ts';
import { integrationRoutes } from './routes/integration-routes.ts';
import { createTemplates } from './templates.ts';
import { adminRoutes } from './routes/admin-routes.ts';
import { keyRoutes } from './routes/key-routes.ts';
import { s3ConnectionRoutes } from './routes/s3-connection-routes.ts';
import { webhookRoutes } from './routes/webhook-routes.ts';
import { historyRoutes } from './routes/history-routes.ts';
import { openApiDocument } from './openapi.ts';

export interface IngressDeps {
  log: EventLog;
  view: StatusView;
  deliveries: DeliveryStore;
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  storage: ArtifactStorage;
  secrets: SecretBox;
  topics: TopicNames;
  ids: Ids;
  clock: Clock;
  event: EventFactory;
  templateEvent: TemplateEventFactory;
  templates: TemplateView;
  assets: AssetStore;
  logger: Logger;
  metrics: Metrics;
  idempotency: IdempotencyKeys;
  readiness: ReadinessCheck[];
  /** Routes mounted before authentication (the embedded profile's signed file links). */
  publicRoutes?: Router[];
  settings: {
    publicUrl: string;
    syncTimeoutMs: number;
    maxBodyBytes: number;
    maxAssetBytes: number;
    /** Bounds on tenant input, each refused with a 400 naming its setting. */
    limits: DoorLimits;
    /** Deadline of compiling a declared data schema or checking data against it (worker thread). */
    validationTimeoutMs: number;
    allowPrivateWebhooks: boolean;
    /** Tenant S3 endpoints may be on loopback and private addresses (default false). */
    allowPrivateS3Endpoints?: boolean;
    adminToken: string | undefined;
    /** How long the ingress waits for the log to take a render request before answering 503. */
    acceptTimeoutMs: number;
    /** How long an Idempotency-Key is remembered. */
    idempotencyTtlMs: number;
    /** Webhook target rules beyond allowPrivateWebhooks, and the secret rotation overlap. */
    webhooks: { allowHttp: boolean; allowedPorts: number[]; secretOverlapMs: number };
    /** Where /metrics is served and its token; default: on this port, open (what tests and `npm start` expect). */
    metrics?: MetricsExposure;
  };
}

const isBatchPath = (path: string) => path === '/v1/pdf/batch' || path === '/v1/html-to-pdf/batch';

export function buildIngressApp(deps: IngressDeps): Koa {
  const app = new Koa({ proxy: true });
  app.silent = true;

  app.use(accessLog(deps));
  app.use(errorMapper(deps.logger, { publicUrl: deps.settings.publicUrl }));

  const open = new Router();
  open.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  open.get('/readyz', async (ctx) => {
    const r = await runReadiness(deps.readiness);
    ctx.status = r.ok ? 200 : 503;
    ctx.body = { status: r.ok ? 'ready' : 'unavailable', checks: r.checks };
  });
  const openApi = openApiDocument(deps.settings.publicUrl);
  open.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });
  const metricsExposure = deps.settings.metrics;
  if (metricsExposure?.port === undefined) {
    open.get('/metrics', async (ctx) => {
      const answer = await metricsAnswer(deps.metrics.registry, metricsExposure?.token, ctx.get('authorization') || undefined);
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body;
    });
  }
  app.use(open.routes());
  for (const r of deps.publicRoutes ?? []) app.use(r.routes());

  const authenticate = requireApiKey(deps.catalog, { clock: deps.clock, logger: deps.logger });
  app.use((ctx, next) => (ctx.path.startsWith('/v1/') ? authenticate(ctx, next) : next()));
  app.use(jsonOnly);
  const body = jsonBody({ maxBodyBytes: deps.settings.maxBodyBytes, limits: deps.settings.limits });
  // The batch endpoints take at most 3 MB, as the API they come from documents (413 above).
  const batchBody = jsonBody({ maxBodyBytes: Math.min(BATCH_MAX_BODY_BYTES, deps.settings.maxBodyBytes), limits: deps.settings.limits });
  app.use((ctx, next) => (isBatchPath(ctx.path) ? batchBody(ctx, next) : body(ctx, next)));

  const s3Endpoints = { allowPrivate: deps.settings.allowPrivateS3Endpoints ?? false };
  if (deps.settings.adminToken) {
    const admin = adminRoutes({ ...deps, adminToken: deps.settings.adminToken, s3Endpoints });
    app.use(admin.routes());
  }

  const schemas = createSchemaChecker({ timeoutMs: deps.settings.validationTimeoutMs });
  const templateStore = createTemplates({ ...deps, limits: deps.settings.limits, schemas });
  const requests = createRenderRequests({
    ...deps,
    limits: deps.settings.limits,
    schemas,
    templates: templateStore,
    allowPrivateWebhooks: deps.settings.allowPrivateWebhooks,
    withdrawals: createWithdrawals(deps),
    acceptTimeoutMs: deps.settings.acceptTimeoutMs,
    idempotencyTtlMs: deps.settings.idempotencyTtlMs,
    webhookTargets: { allowHttp: deps.settings.webhooks.allowHttp, allowedPorts: deps.settings.webhooks.allowedPorts },
  });
  const api = new Router();
  const render = renderRoutes({
    requests,
    storage: deps.storage,
    publicUrl: deps.settings.publicUrl,
    syncTimeoutMs: deps.settings.syncTimeoutMs,
    metrics: deps.metrics,
  });
  const templates = templateRoutes({ templates: templateStore });
  const assets = assetRoutes({ assets: deps.assets, maxAssetBytes: deps.settings.maxAssetBytes });
  const integration = integrationRoutes({ templates: templateStore });
  api.use(render.routes(), render.allowedMethods());
  const tools = toolRoutes({
    requests,
    storage: deps.storage,
    publicUrl: deps.settings.publicUrl,
    syncTimeoutMs: deps.settings.syncTimeoutMs,
    metrics: deps.metrics,
    clock: deps.clock,
  });
  api.use(tools.routes(), tools.allowedMethods());
  const batches = batchRoutes({
    requests,
    storage: deps.storage,
    publicUrl: deps.settings.publicUrl,
    syncTimeoutMs: deps.settings.syncTimeoutMs,
  });
  api.use(batches.routes(), batches.allowedMethods());
  api.use(templates.routes(), templates.allowedMethods());
  api.use(assets.routes(), assets.allowedMethods());
  api.use(integration.routes(), integration.allowedMethods());
  const webhooks = webhookRoutes({ ...deps, secretOverlapMs: deps.settings.webhooks.secretOverlapMs });
  api.use(webhooks.routes(), webhooks.allowedMethods());
  const history = historyRoutes(deps);
  api.use(history.routes(), history.allowedMethods());
  const keys = keyRoutes(deps);
  api.use(keys.routes(), keys.allowedMethods());
  const connections = s3ConnectionRoutes({ ...deps, s3Endpoints });
  api.use(connections.routes(), connections.allowedMethods());
  app.use(api.routes());
  return app;
}
