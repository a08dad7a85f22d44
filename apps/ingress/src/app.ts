import Koa from 'koa';
import type Router from '@koa/router';
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
  Quotas,
  Logger,
  SecretBox,
  StatusView,
  TopicNames,
} from '@pressroom/core';
import { metricsAnswer, runReadiness, type Metrics, type MetricsExposure, type ReadinessCheck } from '@pressroom/observability';
import { BATCH_MAX_BODY_BYTES, type DoorLimits, type PlanLimits } from '@pressroom/domain';
import { createSchemaChecker } from './schema-validation/schema-checker.ts';
import { errorMapper } from './http/error-mapper.ts';
import { accessLog } from './http/access-log.ts';
import { jsonOnly } from './http/json-only.ts';
import { jsonBody } from './http/json-body.ts';
import { requireApiKey, requireScope } from './http/auth.ts';
import { rateLimit } from './http/rate-limit.ts';
import { createAdmission, type AdmissionSettings } from './admission.ts';
import { createRenderRequests } from './render-requests.ts';
import { createWithdrawals } from './withdrawals.ts';
import { renderRoutes } from './routes/render-routes.ts';
import { toolRoutes } from './routes/tool-routes.ts';
import { batchRoutes } from './routes/batch-routes.ts';
import { templateRoutes } from './routes/template-routes.ts';
import { assetRoutes } from './routes/asset-routes.ts';
import { integrationRoutes } from './routes/integration-routes.ts';
import { createTemplates } from './templates.ts';
import { adminAuthentication, adminRoutes } from './routes/admin-routes.ts';
import { keyRoutes } from './routes/key-routes.ts';
import { s3ConnectionRoutes } from './routes/s3-connection-routes.ts';
import { adminWebhookRoutes, webhookRoutes } from './routes/webhook-routes.ts';
import { historyRoutes } from './routes/history-routes.ts';
import { removalRoutes } from './routes/removal-routes.ts';
import { adminUsageRoutes, usageRoutes } from './routes/usage-routes.ts';
import {
  createRenderRemoval,
  createStoredPayloads,
  createUsageLedger,
  type PayloadCopies,
  type PayloadHandoff,
  type RenderHeadStart,
} from '@pressroom/core';
import { openApiDocument } from './openapi.ts';
import { adminApiRoutes, apiRoutes, openRoutes, type ApiOperationId, type OpenOperationId } from './api-routes.ts';
import { buildRouter, type Handlers } from './http/route-table.ts';
import { docsPage } from './http/docs-page.ts';

export interface IngressDeps {
  log: EventLog;
  view: StatusView;
  deliveries: DeliveryStore;
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  storage: ArtifactStorage;
  /** Stored payloads handed to the render worker of this process (standalone): see PayloadHandoff. */
  payloadHandoff?: PayloadHandoff;
  /** Copies of stored payloads for the render workers (distributed): see PayloadCopies. */
  payloadCopies?: PayloadCopies;
  /** The render worker of this process, offered each sync request before its append (standalone): see RenderHeadStart. */
  headStart?: RenderHeadStart;
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
  /** Rate buckets and in-flight renders; without it (tests of other concerns) nothing is limited. */
  quotas?: Quotas;
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
    /** Each plan's quotas (rate, concurrency, batch size, PNG caps). */
    plans?: Record<string, PlanLimits>;
    /** Back-pressure on the async lane and the lease of an in-flight render. */
    admission?: AdmissionSettings;
    /** Request payloads in our own storage, the log keeping hash and size (default), or inline on the log. */
    payloads?: 'store' | 'inline';
  };
}

const isBatchPath = (path: string) => path === '/v1/pdf/batch' || path === '/v1/html-to-pdf/batch';

export function buildIngressApp(deps: IngressDeps): Koa {
  const app = new Koa({ proxy: true });
  app.silent = true;

  app.use(accessLog(deps));
  app.use(errorMapper(deps.logger, { publicUrl: deps.settings.publicUrl }));

  const openApi = openApiDocument(deps.settings.publicUrl);
  const docs = docsPage();
  const metricsExposure = deps.settings.metrics;
  const openHandlers: Handlers<OpenOperationId> = {
    health: (ctx) => {
      ctx.body = { status: 'ok' };
    },
    readiness: async (ctx) => {
      const r = await runReadiness(deps.readiness);
      ctx.status = r.ok ? 200 : 503;
      ctx.body = { status: r.ok ? 'ready' : 'unavailable', checks: r.checks };
    },
    metrics: async (ctx) => {
      const answer = await metricsAnswer(deps.metrics.registry, metricsExposure?.token, ctx.get('authorization') || undefined);
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body;
    },
    getOpenApiDocument: (ctx) => {
      ctx.body = openApi;
    },
    getApiDocsPage: docs.page,
    getApiDocsAsset: docs.asset,
  };
  // /metrics moves to a port of its own when one is configured.
  const open = buildRouter(
    openRoutes.filter((r) => r.operationId !== 'metrics' || metricsExposure?.port === undefined),
    openHandlers,
  );
  app.use(open.routes());
  for (const r of deps.publicRoutes ?? []) app.use(r.routes());

  const authenticate = requireApiKey(deps.catalog, { clock: deps.clock, logger: deps.logger });
  app.use((ctx, next) => (ctx.path.startsWith('/v1/') ? authenticate(ctx, next) : next()));
  const plans = deps.settings.plans;
  if (deps.quotas && plans) {
    const limit = rateLimit({ ...deps, rateLimiter: deps.quotas.rateLimiter, plans });
    app.use((ctx, next) => (ctx.path.startsWith('/v1/') ? limit(ctx, next) : next()));
  }
  app.use(jsonOnly);
  const body = jsonBody({ maxBodyBytes: deps.settings.maxBodyBytes, limits: deps.settings.limits });
  // The batch endpoints take at most 3 MB, as the API they come from documents (413 above).
  const batchBody = jsonBody({ maxBodyBytes: Math.min(BATCH_MAX_BODY_BYTES, deps.settings.maxBodyBytes), limits: deps.settings.limits });
  app.use((ctx, next) => (isBatchPath(ctx.path) ? batchBody(ctx, next) : body(ctx, next)));

  const s3Endpoints = { allowPrivate: deps.settings.allowPrivateS3Endpoints ?? false };
  // One usage projection per process, shared by the tenant and the operator routes.
  const usage = createUsageLedger(deps);
  if (deps.settings.adminToken) {
    const admin = adminRoutes({ ...deps, s3Endpoints });
    const adminWebhooks = adminWebhookRoutes({ ...deps, secretOverlapMs: deps.settings.webhooks.secretOverlapMs });
    app.use(
      buildRouter(adminApiRoutes, { ...admin, ...adminUsageRoutes({ usage }), ...adminWebhooks }, [
        adminAuthentication(deps.settings.adminToken),
      ]).routes(),
    );
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
    ...(plans ? { plans } : {}),
    ...((deps.settings.payloads ?? 'store') === 'store'
      ? {
          payloads: createStoredPayloads({
            own: deps.storage.own,
            ...(deps.payloadHandoff ? { handoff: deps.payloadHandoff } : {}),
            ...(deps.payloadCopies ? { copies: deps.payloadCopies } : {}),
          }),
        }
      : {}),
    ...(deps.quotas && plans && deps.settings.admission
      ? { admission: createAdmission({ ...deps, inFlight: deps.quotas.inFlight, plans, admission: deps.settings.admission }) }
      : {}),
    webhookTargets: { allowHttp: deps.settings.webhooks.allowHttp, allowedPorts: deps.settings.webhooks.allowedPorts },
  });
  const handlers: Handlers<ApiOperationId> = {
    ...renderRoutes({
      requests,
      storage: deps.storage,
      publicUrl: deps.settings.publicUrl,
      syncTimeoutMs: deps.settings.syncTimeoutMs,
      metrics: deps.metrics,
    }),
    ...toolRoutes({
      requests,
      storage: deps.storage,
      publicUrl: deps.settings.publicUrl,
      syncTimeoutMs: deps.settings.syncTimeoutMs,
      metrics: deps.metrics,
      clock: deps.clock,
    }),
    ...batchRoutes({ requests, storage: deps.storage, publicUrl: deps.settings.publicUrl, syncTimeoutMs: deps.settings.syncTimeoutMs }),
    ...templateRoutes({ templates: templateStore }),
    ...assetRoutes({ assets: deps.assets, maxAssetBytes: deps.settings.maxAssetBytes }),
    ...integrationRoutes({ templates: templateStore }),
    ...webhookRoutes({ ...deps, secretOverlapMs: deps.settings.webhooks.secretOverlapMs }),
    ...historyRoutes(deps),
    ...removalRoutes({
      requests,
      view: deps.view,
      removal: createRenderRemoval({ ...deps, own: deps.storage.own, by: 'ingress' }),
    }),
    ...usageRoutes({ usage }),
    ...keyRoutes(deps),
    ...s3ConnectionRoutes({ ...deps, s3Endpoints }),
  };
  // Every route of the table, each with its handler (the compiler refuses a missing one).
  // Each route after the check of the scope it needs (render, or manage for keys and S3 connections).
  app.use(buildRouter(apiRoutes, handlers, (spec) => [requireScope(spec.scope ?? 'render')]).routes());
  return app;
}
