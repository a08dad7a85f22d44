import * as S from '@pressroom/schemas';
import { route, type ParameterSpec, type ResponseSpec, type RouteSpec } from './http/route-table.ts';
import * as X from './openapi-examples.ts';
import { errorAnswer, errorExample, exampleRequestId, exampleTemplateId } from './openapi-examples.ts';

/**
 * Every route of the service, declared once: the routers are built from this table (app.ts,
 * http/route-table.ts) and /openapi.json is generated from it (openapi.ts), so neither can have a
 * route the other lacks (api-routes.unit.spec.ts, openapi.e2e.spec.ts). The common errors (401,
 * 400/413/415 on bodies, 500, 503) are added by the generator from `auth`, the method and
 * `appendsToLog`; a route lists only the answers of its own.
 */

/** Named schemas of the document (`#/components/schemas/<name>`), from the same TypeBox schemas as the code. */
export const componentSchemas: Record<string, unknown> = {
  TemplateSyncBody: S.TemplateSyncBody,
  TemplateAsyncBody: S.TemplateAsyncBody,
  HtmlSyncBody: S.HtmlSyncBody,
  HtmlAsyncBody: S.HtmlAsyncBody,
  SyncSuccessResponse: S.SyncSuccessResponse,
  QueuedResponse: S.QueuedResponse,
  AsyncAcceptedResponse: S.AsyncAcceptedResponse,
  StatusResponse: S.StatusResponse,
  WebhookBody: S.WebhookBody,
  ErrorBody: S.ErrorBody,
  UsageResponse: S.UsageResponse,
  TemplateWriteBody: S.TemplateWriteBody,
  TemplateResource: S.TemplateResource,
  TemplateList: {
    type: 'object',
    properties: { templates: { type: 'array', items: { $ref: '#/components/schemas/TemplateResource' } } },
    required: ['templates'],
  },
  TemplateVersionList: S.TemplateVersionList,
  TemplatePreviewBody: S.TemplatePreviewBody,
  UnsavedPreviewBody: S.UnsavedPreviewBody,
  AssetUploadBody: S.AssetUploadBody,
  AssetResource: S.AssetResource,
  AssetList: {
    type: 'object',
    properties: { assets: { type: 'array', items: { $ref: '#/components/schemas/AssetResource' } } },
    required: ['assets'],
  },
  IntegrationTemplateList: S.IntegrationTemplateList,
  IntegrationTemplate: S.IntegrationTemplate,
  IntegrationTemplateVariables: S.IntegrationTemplateVariables,
  WebhookSecretResponse: S.WebhookSecretResponse,
  WebhookReplayBody: S.WebhookReplayBody,
  WebhookReplayResponse: S.WebhookReplayResponse,
  DeliveryView: S.DeliveryView,
  TemplateBatchBody: S.TemplateBatchBody,
  HtmlBatchBody: S.HtmlBatchBody,
  BatchResponse: S.BatchResponse,
  BatchAcceptedResponse: S.BatchAcceptedResponse,
  MergePdfsBody: S.MergePdfsBody,
  SplitPdfBody: S.SplitPdfBody,
  CompressPdfBody: S.CompressPdfBody,
  UpdatePdfMetadataBody: S.UpdatePdfMetadataBody,
  MarkdownToPdfBody: S.MarkdownToPdfBody,
  ToolSuccessResponse: S.ToolSuccessResponse,
  SplitPdfResponse: S.SplitPdfResponse,
  ToolQueuedResponse: S.ToolQueuedResponse,
  ToolStatusResponse: S.ToolStatusResponse,
  SignedUploadUrlResponse: S.SignedUploadUrlResponse,
  TenantCreateBody: S.TenantCreateBody,
  S3ConnectionCreateBody: S.S3ConnectionCreateBody,
  S3ConnectionUpdateBody: S.S3ConnectionUpdateBody,
  S3ConnectionSummary: S.S3ConnectionSummary,
  S3ConnectionList: S.S3ConnectionList,
  ApiKeyCreateBody: S.ApiKeyCreateBody,
  ApiKeyRotateBody: S.ApiKeyRotateBody,
  ApiKeySummary: S.ApiKeySummary,
  ApiKeyList: S.ApiKeyList,
  ApiKeyCreatedResponse: S.ApiKeyCreatedResponse,
  AdminApiKeyCreatedResponse: S.AdminApiKeyCreatedResponse,
  ApiKeyRotatedResponse: S.ApiKeyRotatedResponse,
  TenantPlanBody: S.TenantPlanBody,
  Tenant: {
    type: 'object',
    properties: {
      tenantId: { type: 'string' },
      name: { type: 'string' },
      plan: { type: 'string', description: 'A plan of PRESSROOM_PLANS (`free`, `standard`, `high` by default).' },
      createdAt: { type: 'string', format: 'date-time' },
    },
    required: ['tenantId', 'name', 'plan', 'createdAt'],
  },
  RenderHistory: renderHistorySchema(),
  RenderList: renderListSchema(),
};

const binary = { type: 'string', format: 'binary' };
/** Answers several routes give alike (the tenant's and the operator's view of one resource, say). */
const unknownTenantOrPart = errorAnswer('Unknown tenant (or key/connection).', 'NOT_FOUND', 'Tenant acme not found.');
const unknownTenant = errorAnswer('Unknown tenant.', 'NOT_FOUND', 'Tenant acme not found.');
const deleted: ResponseSpec = { description: 'Deleted.' };
const newKeyShownOnce: ResponseSpec = {
  description: 'The new key, shown once.',
  schema: 'ApiKeyCreatedResponse',
  example: X.keyCreatedExample,
};
const alreadyRotated = errorAnswer(
  'CONFLICT: only an active key can be rotated (this one is revoked, expired or rotated already).',
  'CONFLICT',
  'API key key_0199a1b2c3d47e5f8a9b0c1d2e3f4a01 is revoked: only an active key can be rotated.',
);
const keyRotated: ResponseSpec = {
  description: 'The new key, shown once, and the old one (`previous`), which keeps working until its `expiresAt`.',
  schema: 'ApiKeyRotatedResponse',
  example: X.keyRotatedExample,
};
const theConnection: ResponseSpec = { description: 'The connection.', schema: 'S3ConnectionSummary', example: X.connectionExample };
const connectionCreated: ResponseSpec = {
  description: 'The connection (without its secret).',
  schema: 'S3ConnectionSummary',
  example: X.connectionExample,
};
const staleIfMatch = errorAnswer(
  'If-Match names a version that is no longer the latest.',
  'CONFLICT',
  `Template ${exampleTemplateId} was changed by another request (now at version 3); read it again and retry.`,
);
const badDayRange = errorAnswer(
  'VALIDATION_FAILED: from/to are not days in order, or span more than 366 days.',
  'VALIDATION_FAILED',
  'The request is invalid.',
  [{ field: 'to', message: 'is before from' }],
);
const revokedKey: ResponseSpec = { description: 'The revoked key.', schema: 'ApiKeySummary', example: X.keyRevokedExample };
const keyList: ResponseSpec = { description: 'The keys.', schema: 'ApiKeyList', example: X.keyListExample };
const connectionList: ResponseSpec = { description: 'The connections.', schema: 'S3ConnectionList', example: X.connectionListExample };
const invalidLink = errorAnswer('The link is invalid or has expired.', 'FORBIDDEN', 'This link is invalid or has expired.');
const fileBytes: ResponseSpec = {
  description: 'The rendered file.',
  content: { 'application/pdf': { schema: binary }, 'image/png': { schema: binary } },
};
const previewTimeout = errorAnswer(
  'The preview did not finish within the sync wait (PREVIEW_TIMEOUT) or hit its time limit.',
  'PREVIEW_TIMEOUT',
  'The preview took longer than 30 seconds; the render goes on (X-Request-Id, status endpoint).',
);
const connectionTestFailed = (description: string) =>
  errorAnswer(description, 'S3_CONNECTION_TEST_FAILED', 'Pressroom could not write to this connection: Access Denied');
const webhookSecret = (description: string): ResponseSpec => ({
  description,
  schema: 'WebhookSecretResponse',
  example: X.webhookSecretExample,
});
const replaysRequested: ResponseSpec = { description: 'Replays requested.', schema: 'WebhookReplayResponse', example: X.replayExample };
const theTenant: ResponseSpec = { description: 'The tenant.', schema: 'Tenant', example: X.tenantExample };
/** 404 of a route reading one resource: `what` names it as the answer does ("Render 0199…"). */
const notFound = (what: string) => errorAnswer('Not found (or another tenant’s).', 'NOT_FOUND', `${what} not found.`);
const forbiddenScope = errorAnswer(
  'FORBIDDEN: the API key lacks the manage scope.',
  'FORBIDDEN',
  'This API key lacks the manage scope; use a key that has it.',
);
const requestIdHeader = { 'X-Request-Id': { description: 'The render’s requestId.', schema: { type: 'string' } } };
const idempotencyKey: ParameterSpec = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes retries safe. A request with a key the tenant used before (within the window, PRESSROOM_IDEMPOTENCY_TTL_MS, ' +
    '24 h by default) and the same endpoint and body (member order aside) is not rendered again: it answers the first ' +
    'request’s requestId and result (header `Idempotency-Replayed: true`), also when both arrive at once or at two ' +
    'ingress processes. The same key with another body or endpoint: 422 IDEMPOTENCY_KEY_REUSED. Keys are per tenant. ' +
    'A request answered 503 was not taken and frees its key: the retry is a new attempt. After a 504 OUTCOME_UNKNOWN the ' +
    'key stays with that request until the log decides it (a retry meanwhile answers 504 again, never starts a second one).',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$' },
};
/** A day of a usage query (UTC, both ends included). */
const usageDay = (name: 'from' | 'to'): ParameterSpec => ({
  name,
  in: 'query',
  required: true,
  description: name === 'from' ? 'First day (YYYY-MM-DD, UTC).' : 'Last day (YYYY-MM-DD, UTC), included.',
  schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
});
const ifMatch: ParameterSpec = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'The template version you replace (`"3"`); another current version answers 409.',
  schema: { type: 'string' },
};
const outcomeUnknown =
  'OUTCOME_UNKNOWN: the request may have reached the log and its withdrawal could not be recorded in time, so it may or ' +
  'may not run; `details.requestId` and `details.statusUrl` (also X-Request-Id) name it, its status answers 404 once it ' +
  'is withdrawn (or never written) and the result if it ran. Retrying with the same Idempotency-Key is safe. Retry-After.';
const renderRefusals: Record<string, ResponseSpec> = {
  '403': errorAnswer(
    'PLAN_FORBIDS_CUSTOM_S3: custom S3 storage needs the high plan; or FORBIDDEN: the API key lacks the render scope.',
    'PLAN_FORBIDS_CUSTOM_S3',
    'Custom S3 storage is available on the high plan only (your plan: standard).',
  ),
  '404': errorAnswer('Unknown template.', 'NOT_FOUND', `Template ${exampleTemplateId} not found.`),
  '409': errorAnswer(
    'IDEMPOTENCY_KEY_IN_USE: the first request with this Idempotency-Key is still being taken; retry later.',
    'IDEMPOTENCY_KEY_IN_USE',
    'A request with this Idempotency-Key is still being taken; retry later.',
  ),
  '429': errorAnswer(
    'RATE_LIMITED (the key’s rate), CONCURRENCY_LIMITED (the tenant’s renders in flight, per plan) or, async only, ' +
      'BACKLOG_FULL (the async lane’s backlog): nothing was taken; retry after Retry-After.',
    'CONCURRENCY_LIMITED',
    'Your account has 10 renders in progress, as many as its plan allows at once; retry when one has finished.',
  ),
};
const historyBusyAnswer = errorAnswer(
  'HISTORY_BUSY: you have 2 history reads under way or waiting already (each reads the log); retry after Retry-After.',
  'HISTORY_BUSY',
  'You have 2 history reads under way or waiting already: each reads the log, so they are taken a few at a time. Retry after Retry-After, or poll the status endpoint instead.',
);
const keyReused = errorExample(
  'IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was used with a different request (endpoint or body). Use a new key for a new request.',
);
const outcomeUnknownExample = errorExample(
  'OUTCOME_UNKNOWN',
  'The request may or may not have been taken; its status will tell. Retrying with the same Idempotency-Key is safe.',
  { requestId: exampleRequestId, statusUrl: X.queuedExample.statusUrl },
);
const failedByRequest =
  "The render failed by the request's doing (TEMPLATE_ERROR, NAVIGATION_REFUSED, PAGE_SETUP_INVALID, OUTPUT_TOO_LARGE, PAYLOAD_REMOVED)";
const templateFailed = errorAnswer(`${failedByRequest}.`, 'TEMPLATE_ERROR', 'it.customer is not defined (template line 3)');
const webhookCallback = (schema: string, example: unknown) => ({
  result: {
    '{$request.body#/webhook}': {
      post: {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example } },
        },
        responses: { '200': { description: 'Any 2xx acknowledges the delivery.' } },
      },
    },
  },
});
/** What every POST that appends to the log shares: API-key auth on the api mount, a JSON body with its example. */
function loggedPost<const Id extends string>(operationId: Id, path: string, tag: string, summary: string, body: string, example: unknown) {
  return {
    operationId,
    method: 'post' as const,
    path,
    tag,
    summary,
    auth: 'apiKey' as const,
    mount: 'api' as const,
    body: { schema: body, example },
    appendsToLog: true,
  };
}
function syncRender<const Id extends string>(operationId: Id, path: string, summary: string, body: string, example: unknown) {
  return {
    ...loggedPost(operationId, path, 'Renders', summary, body, example),
    parameters: [idempotencyKey],
    responses: {
      '200': {
        description: 'Rendered within the wait.',
        schema: 'SyncSuccessResponse',
        example: X.successExample,
        headers: requestIdHeader,
      },
      '202': {
        description: 'Still rendering: queued; poll statusUrl.',
        schema: 'QueuedResponse',
        example: X.queuedExample,
        headers: requestIdHeader,
      },
      '422': errorAnswer(
        `${failedByRequest}, or IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with another request.`,
        'TEMPLATE_ERROR',
        'it.customer is not defined (template line 3)',
      ),
      '504': errorAnswer(
        `The render hit its time limit; or ${outcomeUnknown}`,
        'RENDER_TIMEOUT',
        'The page was not ready to print: the ready selector #done did not appear within 30000 ms.',
      ),
      ...renderRefusals,
    },
  };
}
function asyncRender<const Id extends string>(operationId: Id, path: string, summary: string, body: string, example: unknown) {
  return {
    ...loggedPost(operationId, path, 'Renders', summary, body, example),
    parameters: [idempotencyKey],
    responses: {
      '200': {
        description: 'Accepted; the result is POSTed to `webhook`.',
        schema: 'AsyncAcceptedResponse',
        example: { requestId: exampleRequestId },
        headers: requestIdHeader,
      },
      '422': {
        description: 'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with another request.',
        schema: 'ErrorBody',
        example: keyReused,
      },
      '504': { description: outcomeUnknown, schema: 'ErrorBody', example: outcomeUnknownExample },
      ...renderRefusals,
    },
    callbacks: webhookCallback('WebhookBody', X.webhookBodyExample),
  };
}
function batch<const Id extends string>(operationId: Id, path: string, summary: string, body: string, example: unknown) {
  return {
    ...loggedPost(operationId, path, 'Batches', summary, body, example),
    responses: {
      '200': {
        description: 'The finished batch (sync), or `{batchRequestId, statusUrl}` at once with `async: true`.',
        schema: { oneOf: [{ $ref: '#/components/schemas/BatchResponse' }, { $ref: '#/components/schemas/BatchAcceptedResponse' }] },
        example: X.batchExample,
      },
      '202': {
        description: 'Not finished within the sync wait: poll statusUrl.',
        schema: 'BatchAcceptedResponse',
        example: X.batchAcceptedExample,
      },
      '400': errorAnswer(
        'Invalid batch: more than 20 items, merge with PNG items, or invalid items (`details` names each as items.<i>.<field>).',
        'VALIDATION_FAILED',
        'The request is invalid.',
        [{ field: 'items.1.templateId', message: 'is required' }],
      ),
      '403': renderRefusals['403']!,
      '413': errorAnswer(
        "Body above 3 MB, or PLAN_LIMIT_EXCEEDED: more items than the plan's batchMaxItems.",
        'PLAN_LIMIT_EXCEEDED',
        'Your plan takes at most 5 items in one batch.',
      ),
      '429': errorAnswer(
        'RATE_LIMITED, CONCURRENCY_LIMITED (each item counts as a render in flight) or, async only, BACKLOG_FULL: nothing was taken; retry after Retry-After.',
        'BACKLOG_FULL',
        'Too many async renders are waiting right now; retry later (sync renders are still taken).',
      ),
      '504': errorAnswer(
        'OUTCOME_UNKNOWN: the batch may have been taken in part and this could not be settled in time; `details.statusUrl` tells once it is.',
        'OUTCOME_UNKNOWN',
        'The batch may have been taken in part; its status will tell.',
        { batchRequestId: X.batchExample.batchRequestId, statusUrl: X.batchAcceptedExample.statusUrl },
      ),
    },
    callbacks: webhookCallback('BatchResponse', X.batchExample),
  };
}
function tool<const Id extends string>(
  operationId: Id,
  path: string,
  summary: string,
  body: string,
  example: unknown,
  success: { schema: string; example: unknown } = { schema: 'ToolSuccessResponse', example: X.toolSuccessExample },
) {
  return {
    ...loggedPost(operationId, path, 'PDF tools', summary, body, example),
    parameters: [idempotencyKey],
    responses: {
      '200': {
        description: 'The result within the wait, or `{requestId, statusUrl}` at once with `async: true`.',
        schema: { oneOf: [{ $ref: `#/components/schemas/${success.schema}` }, { $ref: '#/components/schemas/ToolQueuedResponse' }] },
        example: success.example,
        headers: requestIdHeader,
      },
      '202': {
        description: 'Still running: poll statusUrl.',
        schema: 'ToolQueuedResponse',
        example: X.toolQueuedExample,
        headers: requestIdHeader,
      },
      '400': errorAnswer(
        'Invalid fields; URLs that are not http(s), or point at loopback, private or metadata addresses, are refused here.',
        'VALIDATION_FAILED',
        'The request is invalid.',
        [{ field: 'urls.1', message: 'points at a private address' }],
      ),
      '409': renderRefusals['409']!,
      '422': errorAnswer(
        'The input is not a usable PDF (or the Markdown cannot be rendered), or IDEMPOTENCY_KEY_REUSED.',
        'INPUT_INVALID',
        'https://example.com/b.pdf is not a PDF.',
      ),
      '504': errorAnswer('The operation hit its time limit.', 'RENDER_TIMEOUT', 'The operation did not finish within 60 seconds.'),
    },
    callbacks: webhookCallback('ToolStatusResponse', X.toolStatusExample),
  };
}
const pdfUrl = 'https://example.com/in.pdf';

/** A route of the tenants' API: behind an API key (with the `render` scope), on the api mount. */
function tenantRoute<const Id extends string>(spec: Omit<RouteSpec<Id>, 'auth' | 'mount'>): RouteSpec<Id> {
  return route({ ...spec, auth: 'apiKey', mount: 'api' });
}

/** A tenant route managing its keys or S3 connections: behind an API key with the `manage` scope. */
function manageRoute<const Id extends string>(spec: Omit<RouteSpec<Id>, 'auth' | 'mount' | 'scope'>): RouteSpec<Id> {
  return tenantRoute({ ...spec, scope: 'manage' });
}

/** The routes behind a tenant's API key (after authentication and body parsing). */
export const apiRoutes = [
  route(
    syncRender('renderTemplateSync', '/v1/pdf/sync', 'Render a stored template, waiting for the file.', 'TemplateSyncBody', {
      templateId: exampleTemplateId,
      data: { name: 'Ada' },
    }),
  ),
  route(
    asyncRender('renderTemplateAsync', '/v1/pdf/async', 'Render a stored template; the result goes to the webhook.', 'TemplateAsyncBody', {
      templateId: exampleTemplateId,
      data: { name: 'Ada' },
      webhook: 'https://example.com/hooks/pressroom',
    }),
  ),
  route(
    syncRender('renderHtmlSync', '/v1/html-to-pdf/sync', 'Render raw HTML, waiting for the file.', 'HtmlSyncBody', {
      html: '<h1>Report</h1>',
    }),
  ),
  route(
    asyncRender('renderHtmlAsync', '/v1/html-to-pdf/async', 'Render raw HTML; the result goes to the webhook.', 'HtmlAsyncBody', {
      html: '<h1>Report</h1>',
      convertToImage: true,
      webhook: 'https://example.com/hooks/pressroom',
    }),
  ),
  tenantRoute({
    operationId: 'getRenderStatus',
    method: 'get',
    path: '/v1/pdf/status/{requestId}',
    tag: 'Renders',
    summary: 'Status of a render.',
    responses: {
      '200': {
        description: 'ONGOING, SUCCESS or FAILED. Headers X-Template-Id / X-Template-Version name the template version used.',
        schema: 'StatusResponse',
        examples: X.statusExamples,
      },
      '404': notFound(`Render ${exampleRequestId}`),
      '410': errorAnswer(
        'EXPIRED (its plan’s retention ran out) or DELETED (you deleted it): the render’s files are gone.',
        'EXPIRED',
        `The files of render ${exampleRequestId} expired at 2026-12-21T10:00:01.412Z (retention of your plan); render it again for a new one.`,
        { requestId: exampleRequestId, removedAt: '2026-12-21T10:00:01.412Z' },
      ),
    },
  }),
  tenantRoute({
    operationId: 'deleteRender',
    method: 'delete',
    path: '/v1/pdf/{requestId}',
    tag: 'Renders',
    summary: "Remove one of your renders' files now (recorded on the log); its status then answers 410 DELETED.",
    appendsToLog: true,
    responses: {
      '204': { description: 'Removed (also when it already was).' },
      '404': notFound(`Render ${exampleRequestId}`),
      '409': errorAnswer(
        'CONFLICT: the render is still running.',
        'CONFLICT',
        `Render ${exampleRequestId} is still running; delete it once it has finished.`,
      ),
    },
  }),
  manageRoute({
    operationId: 'listKeys',
    method: 'get',
    path: '/v1/keys',
    tag: 'Keys',
    summary: 'Your API keys: id, prefix, label, scopes, created, last used (never the secret).',
    description: 'Needs a key with the `manage` scope (403 FORBIDDEN otherwise).',
    responses: { '200': keyList, '403': forbiddenScope },
  }),
  manageRoute({
    operationId: 'createKey',
    method: 'post',
    path: '/v1/keys',
    tag: 'Keys',
    summary: 'Create an API key (the secret is shown once).',
    description: 'Needs a key with the `manage` scope (403 FORBIDDEN otherwise).',
    body: { schema: 'ApiKeyCreateBody', required: false, example: { label: 'ci', scopes: ['render'] } },
    appendsToLog: true,
    responses: { '201': newKeyShownOnce, '403': forbiddenScope },
  }),
  manageRoute({
    operationId: 'revokeKey',
    method: 'post',
    path: '/v1/keys/{keyId}/revoke',
    tag: 'Keys',
    summary: 'Revoke a key: refused (401) by every ingress from the next request.',
    description: 'Needs a key with the `manage` scope (403 FORBIDDEN otherwise).',
    appendsToLog: true,
    responses: { '200': revokedKey, '403': forbiddenScope, '404': notFound('API key key_0199a1b2c3d47e5f8a9b0c1d2e3f4a01') },
  }),
  manageRoute({
    operationId: 'rotateKey',
    method: 'post',
    path: '/v1/keys/{keyId}/rotate',
    tag: 'Keys',
    summary: 'Rotate a key: a new key (shown once); the old one keeps working for `overlapSeconds`.',
    description: 'Needs a key with the `manage` scope (403 FORBIDDEN otherwise).',
    body: { schema: 'ApiKeyRotateBody', required: false, example: { overlapSeconds: 3600 } },
    appendsToLog: true,
    responses: {
      '201': keyRotated,
      '409': alreadyRotated,
      '403': forbiddenScope,
      '404': notFound('API key key_0199a1b2c3d47e5f8a9b0c1d2e3f4a01'),
    },
  }),
  manageRoute({
    operationId: 'listS3Connections',
    method: 'get',
    path: '/v1/s3-connections',
    tag: 'S3 connections',
    summary: 'Your S3 connections (secrets are never answered).',
    description: 'Needs a key with the `manage` scope (403 FORBIDDEN otherwise).',
    responses: { '200': connectionList, '403': forbiddenScope },
  }),
  manageRoute({
    operationId: 'createS3Connection',
    method: 'post',
    path: '/v1/s3-connections',
    tag: 'S3 connections',
    summary: 'Register your own bucket; Pressroom tests it with a write and a delete first.',
    description:
      'Needs a key with the `manage` scope (403 FORBIDDEN otherwise). Custom S3 is on the high plan only (403 PLAN_FORBIDS_CUSTOM_S3).',
    body: { schema: 'S3ConnectionCreateBody', example: X.connectionBodyExample },
    appendsToLog: true,
    responses: {
      '201': connectionCreated,
      '403': errorAnswer(
        'PLAN_FORBIDS_CUSTOM_S3, or a key without the manage scope.',
        'PLAN_FORBIDS_CUSTOM_S3',
        'Custom S3 storage is available on the high plan only (your plan: standard).',
      ),
      '422': connectionTestFailed('S3_CONNECTION_TEST_FAILED: the test write or delete failed; `message` says why.'),
    },
  }),
  manageRoute({
    operationId: 'getS3Connection',
    method: 'get',
    path: '/v1/s3-connections/{connectionId}',
    tag: 'S3 connections',
    summary: 'One of your S3 connections.',
    description: 'Needs a key with the `manage` scope (403 FORBIDDEN otherwise).',
    responses: { '200': theConnection, '403': forbiddenScope, '404': notFound('S3 connection invoices') },
  }),
  manageRoute({
    operationId: 'updateS3Connection',
    method: 'put',
    path: '/v1/s3-connections/{connectionId}',
    tag: 'S3 connections',
    summary: 'Change a connection (tested again before it is stored).',
    description: 'Needs a key with the `manage` scope (403 FORBIDDEN otherwise).',
    body: { schema: 'S3ConnectionUpdateBody', example: X.connectionUpdateExample },
    appendsToLog: true,
    responses: {
      '200': theConnection,
      '403': forbiddenScope,
      '404': notFound('S3 connection invoices'),
      '422': connectionTestFailed('S3_CONNECTION_TEST_FAILED: the test write or delete failed.'),
    },
  }),
  manageRoute({
    operationId: 'deleteS3Connection',
    method: 'delete',
    path: '/v1/s3-connections/{connectionId}',
    tag: 'S3 connections',
    summary: 'Delete a connection (renders already written there stay in your bucket).',
    description: 'Needs a key with the `manage` scope (403 FORBIDDEN otherwise).',
    appendsToLog: true,
    responses: { '204': deleted, '403': forbiddenScope, '404': notFound('S3 connection invoices') },
  }),
  tenantRoute({
    operationId: 'getUsage',
    method: 'get',
    path: '/v1/usage',
    tag: 'Usage',
    summary: 'Your usage by day (UTC): renders by outcome, pages, bytes and render seconds, from the log.',
    parameters: [usageDay('from'), usageDay('to')],
    responses: {
      '200': { description: 'Days with renders, in date order.', schema: 'UsageResponse', example: X.usageExample },
      '400': badDayRange,
    },
  }),
  tenantRoute({
    operationId: 'previewUnsavedTemplate',
    method: 'post',
    path: '/v1/templates/preview',
    tag: 'Templates',
    summary: 'Render unsaved template content and answer the bytes directly.',
    parameters: [idempotencyKey],
    body: { schema: 'UnsavedPreviewBody', example: { content: '<h1>Hello <%= it.name %></h1>', data: { name: 'Ada' } } },
    appendsToLog: true,
    responses: {
      '200': fileBytes,
      '422': templateFailed,
      '504': previewTimeout,
    },
  }),
  tenantRoute({
    operationId: 'previewTemplate',
    method: 'post',
    path: '/v1/templates/{templateId}/preview',
    tag: 'Templates',
    summary: 'Render a stored template and answer the bytes directly (for editors).',
    parameters: [idempotencyKey],
    body: { schema: 'TemplatePreviewBody', example: { data: { name: 'Ada' } } },
    appendsToLog: true,
    responses: {
      '200': fileBytes,
      '404': notFound(`Template ${exampleTemplateId}`),
      '422': templateFailed,
      '504': previewTimeout,
    },
  }),
  route(
    tool('mergePdfs', '/v1/tools/merge-pdfs', 'Merge PDFs (by URL) into one.', 'MergePdfsBody', {
      urls: [pdfUrl, 'https://example.com/b.pdf'],
      finalFilename: 'merged.pdf',
    }),
  ),
  route(
    tool(
      'splitPdf',
      '/v1/tools/split-pdf',
      'Split a PDF by page ranges or fixed intervals.',
      'SplitPdfBody',
      { url: pdfUrl, splitMode: 'ranges', ranges: '1-2,3', finalFilename: 'contract.pdf' },
      { schema: 'SplitPdfResponse', example: X.splitExample },
    ),
  ),
  route(
    tool(
      'compressPdf',
      '/v1/tools/compress-pdf',
      'Compress a PDF (Ghostscript; levels low, medium, high).',
      'CompressPdfBody',
      { url: pdfUrl, compressLevel: 'medium', finalFilename: 'report-compressed.pdf' },
      { schema: 'ToolSuccessResponse', example: X.compressedExample },
    ),
  ),
  route(
    tool(
      'updatePdfMetadata',
      '/v1/tools/update-pdf-metadata',
      'Set a PDF’s document information (title, author, …).',
      'UpdatePdfMetadataBody',
      { url: pdfUrl, metadata: { title: 'Q3 report' } },
    ),
  ),
  route(
    tool(
      'convertMarkdownToPdf',
      '/v1/tools/convert-markdown-to-pdf',
      'Render Markdown to PDF through the Chromium pipeline.',
      'MarkdownToPdfBody',
      { markdown: '# Hello' },
    ),
  ),
  tenantRoute({
    operationId: 'getSignedUploadUrl',
    method: 'get',
    path: '/v1/tools/get-signed-upload-url',
    tag: 'PDF tools',
    summary: 'A link to upload a PDF to (PUT, 30 minutes) and a link to read it back (60 minutes), for the tools.',
    parameters: [{ name: 'fileName', in: 'query', required: false, schema: { type: 'string' } }],
    responses: {
      '200': { description: 'The links.', schema: 'SignedUploadUrlResponse', example: X.signedUploadExample },
      '501': errorAnswer('This storage takes no uploads.', 'NOT_IMPLEMENTED', 'This storage takes no uploads.'),
    },
  }),
  tenantRoute({
    operationId: 'getToolStatus',
    method: 'get',
    path: '/v1/tools/status/{requestId}',
    tag: 'PDF tools',
    summary: 'Status of a tool request.',
    responses: {
      '200': { description: 'ONGOING, SUCCESS or FAILED, with the result.', schema: 'ToolStatusResponse', examples: X.toolStatusExamples },
      '404': notFound('Tool request 0199a1b2-e5f6-7a8b-9c0d-1e2f3a4b5c6d'),
    },
  }),
  route(
    batch('renderTemplateBatch', '/v1/pdf/batch', 'Render 1 to 20 stored templates, optionally merged into one PDF.', 'TemplateBatchBody', {
      items: [{ templateId: exampleTemplateId, data: { name: 'Ada' } }],
      merge: true,
    }),
  ),
  route(
    batch('renderHtmlBatch', '/v1/html-to-pdf/batch', 'Render 1 to 20 HTML documents, optionally merged into one PDF.', 'HtmlBatchBody', {
      items: [{ html: '<h1>One</h1>' }, { html: '<h1>Two</h1>' }],
    }),
  ),
  tenantRoute({
    operationId: 'getBatchStatus',
    method: 'get',
    path: '/v1/pdf/batch/status/{batchRequestId}',
    tag: 'Batches',
    summary: 'Status of a batch and of each of its items.',
    responses: {
      '200': { description: 'ONGOING, SUCCESS, PARTIAL_SUCCESS or FAILED.', schema: 'BatchResponse', examples: X.batchExamples },
      '404': notFound('Batch 0199a1b2-d0e1-7f2a-9b3c-4d5e6f7a8b9c'),
    },
  }),
  tenantRoute({
    operationId: 'createTemplate',
    method: 'post',
    path: '/v1/templates',
    tag: 'Templates',
    summary: 'Create a template.',
    body: { schema: 'TemplateWriteBody', example: { name: 'hello', content: '<h1>Hello <%= it.name %></h1>' } },
    appendsToLog: true,
    responses: { '201': { description: 'The template (version 1).', schema: 'TemplateResource', example: X.templateExample(1) } },
  }),
  tenantRoute({
    operationId: 'listTemplates',
    method: 'get',
    path: '/v1/templates',
    tag: 'Templates',
    summary: 'List your templates (each at its latest version).',
    responses: { '200': { description: 'Templates.', schema: 'TemplateList', example: X.templateListExample } },
  }),
  tenantRoute({
    operationId: 'getTemplate',
    method: 'get',
    path: '/v1/templates/{templateId}',
    tag: 'Templates',
    summary: 'Read a template (its latest version).',
    responses: {
      '200': { description: 'The template.', schema: 'TemplateResource', example: X.templateExample(2) },
      '404': notFound(`Template ${exampleTemplateId}`),
    },
  }),
  tenantRoute({
    operationId: 'listTemplateVersions',
    method: 'get',
    path: '/v1/templates/{templateId}/versions',
    tag: 'Templates',
    summary: 'Every version of a template, oldest first.',
    responses: {
      '200': { description: 'Versions.', schema: 'TemplateVersionList', example: X.templateVersionsExample },
      '404': notFound(`Template ${exampleTemplateId}`),
    },
  }),
  tenantRoute({
    operationId: 'getTemplateVersion',
    method: 'get',
    path: '/v1/templates/{templateId}/versions/{version}',
    tag: 'Templates',
    summary: 'One immutable version of a template.',
    responses: {
      '200': { description: 'The version.', schema: 'TemplateResource', example: X.templateExample(1, 2) },
      '404': notFound(`Template ${exampleTemplateId} version 7`),
    },
  }),
  tenantRoute({
    operationId: 'reviseTemplate',
    method: 'put',
    path: '/v1/templates/{templateId}',
    tag: 'Templates',
    summary: 'Revise a template (version + 1).',
    parameters: [ifMatch],
    body: { schema: 'TemplateWriteBody', example: { name: 'hello', content: '<h1>Hi <%= it.name %></h1>' } },
    appendsToLog: true,
    responses: {
      '200': { description: 'The template at its new version.', schema: 'TemplateResource', example: X.templateExample(2) },
      '404': notFound(`Template ${exampleTemplateId}`),
      '409': staleIfMatch,
    },
  }),
  tenantRoute({
    operationId: 'deleteTemplate',
    method: 'delete',
    path: '/v1/templates/{templateId}',
    tag: 'Templates',
    summary: 'Delete a template.',
    parameters: [ifMatch],
    appendsToLog: true,
    responses: {
      '204': deleted,
      '400': errorAnswer('If-Match is not a version.', 'VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'If-Match', message: 'must be a template version such as "3"' },
      ]),
      '404': notFound(`Template ${exampleTemplateId}`),
      '409': staleIfMatch,
    },
  }),
  tenantRoute({
    operationId: 'uploadAsset',
    method: 'post',
    path: '/v1/assets',
    tag: 'Assets',
    summary: 'Upload a font or image (base64 in JSON); templates use it as https://assets.pressroom.invalid/<name>.',
    body: {
      schema: 'AssetUploadBody',
      example: {
        name: 'logo.png',
        contentType: 'image/png',
        dataBase64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      },
    },
    responses: {
      '200': { description: 'Replaced.', schema: 'AssetResource', example: X.assetExample },
      '201': { description: 'Stored.', schema: 'AssetResource', example: X.assetExample },
      '413': errorAnswer('Asset or body too large.', 'PAYLOAD_TOO_LARGE', 'An asset may be at most 5242880 bytes; this one is 7340032.'),
    },
  }),
  tenantRoute({
    operationId: 'listAssets',
    method: 'get',
    path: '/v1/assets',
    tag: 'Assets',
    summary: 'Your fonts and images.',
    responses: { '200': { description: 'Assets.', schema: 'AssetList', example: X.assetListExample } },
  }),
  tenantRoute({
    operationId: 'getAsset',
    method: 'get',
    path: '/v1/assets/{name}',
    tag: 'Assets',
    summary: 'An asset’s details.',
    responses: {
      '200': { description: 'The asset.', schema: 'AssetResource', example: X.assetExample },
      '404': notFound('Asset logo.png'),
    },
  }),
  tenantRoute({
    operationId: 'getAssetContent',
    method: 'get',
    path: '/v1/assets/{name}/content',
    tag: 'Assets',
    summary: 'An asset’s bytes.',
    responses: {
      '200': { description: 'The bytes, with their content type.', content: { 'application/octet-stream': { schema: binary } } },
      '404': notFound('Asset logo.png'),
    },
  }),
  tenantRoute({
    operationId: 'deleteAsset',
    method: 'delete',
    path: '/v1/assets/{name}',
    tag: 'Assets',
    summary: 'Delete an asset.',
    responses: { '204': deleted, '404': notFound('Asset logo.png') },
  }),
  tenantRoute({
    operationId: 'listIntegrationTemplates',
    method: 'get',
    path: '/v1/integration/templates',
    tag: 'Integration',
    summary: 'Your templates in the shape clients of this API family expect: {templates: [{id, displayName, …}]}.',
    responses: { '200': { description: 'Templates.', schema: 'IntegrationTemplateList', example: X.integrationTemplateListExample } },
  }),
  tenantRoute({
    operationId: 'createIntegrationTemplate',
    method: 'post',
    path: '/v1/integration/templates/create',
    tag: 'Integration',
    summary: 'AI generation of a template from a prompt: not offered by Pressroom (501 NOT_IMPLEMENTED).',
    responses: {
      '501': errorAnswer(
        'Not offered: create templates with POST /v1/templates.',
        'NOT_IMPLEMENTED',
        'Creating templates from a prompt (AI generation) is not offered by Pressroom. Create the template with POST /v1/templates {name, content}.',
      ),
    },
  }),
  tenantRoute({
    operationId: 'getIntegrationTemplate',
    method: 'get',
    path: '/v1/integration/templates/{templateId}',
    tag: 'Integration',
    summary: 'One template (its latest version) in the shape clients of this API family expect.',
    responses: {
      '200': { description: 'The template.', schema: 'IntegrationTemplate', example: X.integrationTemplateExample },
      '404': notFound(`Template ${exampleTemplateId}`),
    },
  }),
  tenantRoute({
    operationId: 'getIntegrationTemplateVariables',
    method: 'get',
    path: '/v1/integration/templates/{templateId}/variables',
    tag: 'Integration',
    summary: 'The variables a template expects.',
    responses: {
      '200': { description: 'Variables.', schema: 'IntegrationTemplateVariables', example: X.integrationVariablesExample },
      '404': notFound(`Template ${exampleTemplateId}`),
    },
  }),
  tenantRoute({
    operationId: 'getWebhookSecret',
    method: 'get',
    path: '/v1/webhooks/secret',
    tag: 'Webhooks',
    summary: 'Your webhook signing secret (created on first use), and the previous one during a rotation overlap.',
    responses: { '200': webhookSecret('The secret(s).') },
  }),
  tenantRoute({
    operationId: 'rotateWebhookSecret',
    method: 'post',
    path: '/v1/webhooks/secret/rotate',
    tag: 'Webhooks',
    summary: 'Replace the signing secret; the previous one keeps signing too until `previous.expiresAt`.',
    appendsToLog: true,
    responses: { '200': webhookSecret('The new secret(s).') },
  }),
  tenantRoute({
    operationId: 'replayWebhooks',
    method: 'post',
    path: '/v1/webhooks/replay',
    tag: 'Webhooks',
    summary: 'Deliver results again from the log: one request, or every result completed in [from, to).',
    body: { schema: 'WebhookReplayBody', example: { requestId: exampleRequestId } },
    appendsToLog: true,
    responses: {
      '202': replaysRequested,
      '404': errorAnswer('No such delivery for this tenant.', 'NOT_FOUND', `Deliveries of render ${exampleRequestId} not found.`),
    },
  }),
  tenantRoute({
    operationId: 'getDeliveries',
    method: 'get',
    path: '/v1/pdf/{requestId}/deliveries',
    tag: 'Webhooks',
    summary: 'Every webhook attempt of an async render, and the outcome of each round.',
    responses: {
      '200': { description: 'The deliveries.', schema: 'DeliveryView', example: X.deliveriesExample },
      '404': notFound(`Deliveries of render ${exampleRequestId}`),
    },
  }),
  tenantRoute({
    operationId: 'getRenderEvents',
    method: 'get',
    path: '/v1/pdf/{requestId}/events',
    tag: 'History',
    summary:
      'Every event of one of your renders, in order, read from the log, with the template version and the Chromium that rendered it.',
    responses: {
      '200': { description: 'The history.', schema: 'RenderHistory', example: X.historyExample },
      '404': notFound(`Render ${exampleRequestId}`),
      '429': historyBusyAnswer,
    },
  }),
  tenantRoute({
    operationId: 'listRenders',
    method: 'get',
    path: '/v1/renders',
    tag: 'History',
    summary: 'Your renders requested in [from, to), optionally only those with an externalId, in requestId order.',
    parameters: [
      { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Default: 24 hours before `to`.' },
      { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Default: now.' },
      { name: 'externalId', in: 'query', schema: { type: 'string', maxLength: 255 } },
      { name: 'after', in: 'query', schema: { type: 'string' }, description: 'The `next` of the previous page.' },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
    ],
    responses: {
      '200': { description: 'One page of renders.', schema: 'RenderList', example: X.renderListExample },
      '400': errorAnswer('A parameter is invalid or unknown.', 'VALIDATION_FAILED', 'The request is invalid.', [
        { field: 'limit', message: 'must be <= 1000' },
      ]),
      '429': historyBusyAnswer,
    },
  }),
];

const adminCondition = 'Served only when PRESSROOM_ADMIN_TOKEN is set (404 otherwise).';

/** A route of the operator's API: behind the admin token, on the admin mount, served only when that token is set. */
function adminRoute<const Id extends string>(spec: Omit<RouteSpec<Id>, 'auth' | 'mount' | 'conditional'>): RouteSpec<Id> {
  return route({ ...spec, auth: 'admin', mount: 'admin', conditional: adminCondition });
}

/** The operator's API under /admin/v1, behind PRESSROOM_ADMIN_TOKEN. */
export const adminApiRoutes = [
  adminRoute({
    operationId: 'adminGetTenant',
    method: 'get',
    path: '/admin/v1/tenants/{tenantId}',
    tag: 'Admin',
    summary: 'A tenant.',
    responses: {
      '200': theTenant,
      '404': unknownTenantOrPart,
    },
  }),
  adminRoute({
    operationId: 'adminChangePlan',
    method: 'put',
    path: '/admin/v1/tenants/{tenantId}/plan',
    tag: 'Admin',
    summary: 'Change a tenant’s plan (an event on the log).',
    body: { schema: 'TenantPlanBody', example: { plan: 'high' } },
    appendsToLog: true,
    responses: {
      '200': theTenant,
      '404': unknownTenantOrPart,
    },
  }),
  adminRoute({
    operationId: 'adminListApiKeys',
    method: 'get',
    path: '/admin/v1/tenants/{tenantId}/keys',
    tag: 'Admin',
    summary: 'A tenant’s API keys (never the secret).',
    responses: {
      '200': keyList,
      '404': unknownTenantOrPart,
    },
  }),
  adminRoute({
    operationId: 'adminRevokeApiKey',
    method: 'post',
    path: '/admin/v1/tenants/{tenantId}/keys/{keyId}/revoke',
    tag: 'Admin',
    summary: 'Revoke a tenant’s key.',
    appendsToLog: true,
    responses: {
      '200': revokedKey,
      '404': unknownTenantOrPart,
    },
  }),
  adminRoute({
    operationId: 'adminRotateApiKey',
    method: 'post',
    path: '/admin/v1/tenants/{tenantId}/keys/{keyId}/rotate',
    tag: 'Admin',
    summary: 'Rotate a tenant’s key with an overlap.',
    body: { schema: 'ApiKeyRotateBody', required: false, example: { overlapSeconds: 86400 } },
    appendsToLog: true,
    responses: {
      '201': keyRotated,
      '409': alreadyRotated,
      '404': unknownTenantOrPart,
    },
  }),
  adminRoute({
    operationId: 'adminListS3Connections',
    method: 'get',
    path: '/admin/v1/tenants/{tenantId}/s3-connections',
    tag: 'Admin',
    summary: 'A tenant’s S3 connections (no secrets).',
    responses: {
      '200': connectionList,
      '404': unknownTenantOrPart,
    },
  }),
  adminRoute({
    operationId: 'adminUpdateS3Connection',
    method: 'put',
    path: '/admin/v1/tenants/{tenantId}/s3-connections/{connectionId}',
    tag: 'Admin',
    summary: 'Change a tenant’s connection (tested again).',
    body: { schema: 'S3ConnectionUpdateBody', example: X.connectionUpdateExample },
    appendsToLog: true,
    responses: {
      '200': theConnection,
      '404': unknownTenantOrPart,
      '422': connectionTestFailed('S3_CONNECTION_TEST_FAILED.'),
    },
  }),
  adminRoute({
    operationId: 'adminDeleteS3Connection',
    method: 'delete',
    path: '/admin/v1/tenants/{tenantId}/s3-connections/{connectionId}',
    tag: 'Admin',
    summary: 'Delete a tenant’s connection.',
    appendsToLog: true,
    responses: { '204': deleted, '404': unknownTenantOrPart },
  }),
  adminRoute({
    operationId: 'adminGetUsage',
    method: 'get',
    path: '/admin/v1/usage',
    tag: 'Admin',
    summary: 'Every tenant’s usage by day (or one tenant’s, with `tenant`), for billing.',
    parameters: [
      usageDay('from'),
      usageDay('to'),
      { name: 'tenant', in: 'query', required: false, description: 'Only this tenant.', schema: { type: 'string' } },
    ],
    responses: {
      '200': { description: 'Days with renders, in date order, per tenant.', schema: 'UsageResponse', example: X.adminUsageExample },
      '400': badDayRange,
    },
  }),
  adminRoute({
    operationId: 'adminCreateTenant',
    method: 'post',
    path: '/admin/v1/tenants',
    tag: 'Admin',
    summary: 'Create a tenant.',
    body: { schema: 'TenantCreateBody', example: { name: 'Acme', plan: 'high' } },
    appendsToLog: true,
    responses: {
      '201': theTenant,
      '409': errorAnswer('CONFLICT: a tenant with this tenantId exists already.', 'CONFLICT', 'Tenant acme exists already.'),
    },
  }),
  adminRoute({
    operationId: 'adminIssueApiKey',
    method: 'post',
    path: '/admin/v1/tenants/{tenantId}/keys',
    tag: 'Admin',
    summary: 'Issue an API key for a tenant (shown once).',
    body: { schema: 'ApiKeyCreateBody', required: false, example: { label: 'ci', scopes: ['render', 'manage'] } },
    appendsToLog: true,
    responses: {
      '201': {
        description: 'The key, shown once (with the tenantId).',
        schema: 'AdminApiKeyCreatedResponse',
        example: X.adminKeyCreatedExample,
      },
      '404': unknownTenant,
    },
  }),
  adminRoute({
    operationId: 'adminRegisterS3Connection',
    method: 'post',
    path: '/admin/v1/tenants/{tenantId}/s3-connections',
    tag: 'Admin',
    summary: 'Register a tenant’s own S3 bucket (credentials stored encrypted).',
    body: { schema: 'S3ConnectionCreateBody', example: X.connectionBodyExample },
    appendsToLog: true,
    responses: {
      '201': connectionCreated,
      '404': unknownTenant,
    },
  }),
  adminRoute({
    operationId: 'adminGetWebhookSecret',
    method: 'get',
    path: '/admin/v1/tenants/{tenantId}/webhooks/secret',
    tag: 'Admin',
    summary: 'A tenant’s webhook signing secret (created on first use), as the tenant’s own GET /v1/webhooks/secret.',
    responses: { '200': webhookSecret('The secret(s).'), '404': unknownTenant },
  }),
  adminRoute({
    operationId: 'adminRotateWebhookSecret',
    method: 'post',
    path: '/admin/v1/tenants/{tenantId}/webhooks/secret/rotate',
    tag: 'Admin',
    summary: 'Rotate a tenant’s webhook signing secret; the previous one keeps signing until `previous.expiresAt`.',
    appendsToLog: true,
    responses: { '200': webhookSecret('The new secret(s).'), '404': unknownTenant },
  }),
  adminRoute({
    operationId: 'adminReplayWebhooks',
    method: 'post',
    path: '/admin/v1/tenants/{tenantId}/webhooks/replay',
    tag: 'Admin',
    summary: 'Deliver a tenant’s results again from the log (recorded as requested by `ops`): one request, or every result in [from, to).',
    body: { schema: 'WebhookReplayBody', example: { requestId: exampleRequestId } },
    appendsToLog: true,
    responses: {
      '202': replaysRequested,
      '404': errorAnswer('Unknown tenant, or no such delivery for it.', 'NOT_FOUND', `Deliveries of render ${exampleRequestId} not found.`),
    },
  }),
  adminRoute({
    operationId: 'adminReadEvents',
    method: 'get',
    path: '/admin/v1/events',
    tag: 'Admin',
    summary: 'The log, for audit, as JSON lines (what `ops events` prints).',
    parameters: [
      {
        name: 'request',
        in: 'query',
        description: 'Only the events of this request (or template, batch, tenant) key.',
        schema: { type: 'string' },
      },
      { name: 'type', in: 'query', description: 'Only events of this type.', schema: { type: 'string' } },
    ],
    responses: {
      '200': {
        description: 'One `{topic, partition, offset, event}` per line.',
        content: { 'application/x-ndjson': { schema: { type: 'string' } } },
      },
    },
  }),
];

const bareJson = (description: string, properties: Record<string, unknown>, required: string[], example: unknown): ResponseSpec => ({
  description,
  schema: { type: 'object', properties, required },
  example,
});

/** Served before authentication: health, metrics, this document and its page. */
export const openRoutes = [
  route({
    operationId: 'health',
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    summary: 'Liveness: the process answers.',
    auth: 'none',
    mount: 'open',
    responses: { '200': bareJson('Alive.', { status: { type: 'string', enum: ['ok'] } }, ['status'], { status: 'ok' }) },
  }),
  route({
    operationId: 'readiness',
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Readiness: every dependency this process uses answers.',
    auth: 'none',
    mount: 'open',
    responses: {
      '200': bareJson(
        'Ready.',
        { status: { type: 'string', enum: ['ready'] }, checks: { type: 'object' } },
        ['status', 'checks'],
        X.readyExample,
      ),
      '503': bareJson(
        'A dependency does not answer; `checks` says which.',
        { status: { type: 'string', enum: ['unavailable'] }, checks: { type: 'object' } },
        ['status', 'checks'],
        X.unavailableExample,
      ),
    },
  }),
  route({
    operationId: 'metrics',
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics (text exposition format).',
    description: 'With PRESSROOM_METRICS_TOKEN set, needs `Authorization: Bearer <token>`.',
    auth: 'none',
    mount: 'open',
    conditional: 'Served on this port unless PRESSROOM_METRICS_PORT moves it to a port of its own.',
    responses: {
      '200': { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } },
      '401': { description: 'PRESSROOM_METRICS_TOKEN is set and the request does not carry it.' },
    },
  }),
  route({
    operationId: 'getOpenApiDocument',
    method: 'get',
    path: '/openapi.json',
    tag: 'Operations',
    summary: 'This document.',
    auth: 'none',
    mount: 'open',
    responses: { '200': { description: 'The OpenAPI 3.1 document.', schema: { type: 'object' }, example: X.documentExample } },
  }),
  route({
    operationId: 'getApiDocsPage',
    method: 'get',
    path: '/docs',
    tag: 'Operations',
    summary: 'This document as a browsable page (served from the service itself; works offline).',
    auth: 'none',
    mount: 'open',
    responses: { '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
  }),
  route({
    operationId: 'getApiDocsAsset',
    method: 'get',
    path: '/docs/assets/{file}',
    tag: 'Operations',
    summary: 'The docs page’s scripts and styles.',
    auth: 'none',
    mount: 'open',
    responses: {
      '200': { description: 'The file.', content: { 'application/octet-stream': { schema: binary } } },
      '404': notFound('File app.js'),
    },
  }),
];

/** Served by the embedded profile's local storage (its signed links); S3 serves them in the distributed profile. */
export const storageRoutes = [
  route({
    operationId: 'downloadFile',
    method: 'get',
    path: '/v1/files/{key}',
    tag: 'Files',
    summary: 'A rendered file, by the signed link a render answered (`signedUrl`).',
    description:
      'The embedded profile’s signed links (the distributed profile answers S3 presigned links instead). `key` may contain `/`. ' +
      'No API key: the signature is the credential. HEAD answers the headers only.',
    auth: 'signedLink',
    mount: 'storage',
    conditional: 'Embedded profile (local storage) only.',
    parameters: [
      { name: 'expires', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'signature', in: 'query', required: true, schema: { type: 'string' } },
    ],
    responses: {
      '200': { description: 'The file.', content: { 'application/pdf': { schema: binary }, 'image/png': { schema: binary } } },
      '403': invalidLink,
      '410': errorAnswer('EXPIRED or DELETED: the render’s file was removed.', 'DELETED', `Render ${exampleRequestId} was deleted.`),
    },
  }),
  route({
    operationId: 'uploadFile',
    method: 'put',
    path: '/v1/tools/uploads/{key}',
    tag: 'Files',
    summary: 'Upload a PDF to a link from GET /v1/tools/get-signed-upload-url (raw bytes, not JSON).',
    description: 'The embedded profile’s counterpart of an S3 presigned PUT. `key` may contain `/`. The signature is the credential.',
    auth: 'signedLink',
    mount: 'storage',
    conditional: 'Embedded profile (local storage) only.',
    parameters: [
      { name: 'expires', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'signature', in: 'query', required: true, schema: { type: 'string' } },
    ],
    body: { schema: binary, required: true },
    responses: {
      '200': { description: 'Stored.' },
      '403': invalidLink,
      '413': errorAnswer('Above the upload limit.', 'PAYLOAD_TOO_LARGE', 'Uploads are limited to 52428800 bytes.'),
    },
  }),
];

export type ApiOperationId = (typeof apiRoutes)[number]['operationId'];
export type AdminOperationId = (typeof adminApiRoutes)[number]['operationId'];
export type OpenOperationId = (typeof openRoutes)[number]['operationId'];

/** Every route, in the order the document lists them. */
export const allRoutes = [...apiRoutes, ...adminApiRoutes, ...openRoutes, ...storageRoutes];

function renderHistorySchema() {
  const template = {
    type: 'object',
    properties: { templateId: { type: 'string' }, templateVersion: { type: 'integer' } },
    required: ['templateId', 'templateVersion'],
  };
  return {
    type: 'object',
    properties: {
      requestId: { type: 'string' },
      renderStatus: { type: 'string', enum: ['ONGOING', 'SUCCESS', 'FAILED'] },
      externalId: { type: 'string' },
      template,
      chromium: { type: 'string' },
      events: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            eventId: { type: 'string' },
            type: { type: 'string' },
            occurredAt: { type: 'string', format: 'date-time' },
            data: { type: 'object' },
          },
          required: ['eventId', 'type', 'occurredAt', 'data'],
        },
      },
    },
    required: ['requestId', 'renderStatus', 'events'],
  };
}

function renderListSchema() {
  return {
    type: 'object',
    properties: {
      from: { type: 'string', format: 'date-time' },
      to: { type: 'string', format: 'date-time' },
      next: { type: 'string' },
      renders: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            requestId: { type: 'string' },
            requestedAt: { type: 'string', format: 'date-time' },
            mode: { type: 'string', enum: ['sync', 'async'] },
            output: { type: 'string', enum: ['pdf', 'png'] },
            renderStatus: { type: 'string', enum: ['ONGOING', 'SUCCESS', 'FAILED'] },
            externalId: { type: 'string' },
            template: {
              type: 'object',
              properties: { templateId: { type: 'string' }, templateVersion: { type: 'integer' } },
              required: ['templateId', 'templateVersion'],
            },
            completedAt: { type: 'string', format: 'date-time' },
          },
          required: ['requestId', 'requestedAt', 'mode', 'output', 'renderStatus'],
        },
      },
    },
    required: ['from', 'to', 'renders'],
  };
}
