import type { ResponseSpec } from './http/route-table.ts';

/**
 * The examples of the OpenAPI document: one realistic body for every JSON answer and request of the
 * route table (api-routes.ts), all telling one story — tenant `acme`, its template, one render of
 * it — so a reader can follow the same ids from a request to its status, history and webhook. Each
 * example is checked against its own schema, and every JSON body must have one
 * (test/openapi-contract.unit.spec.ts).
 */

const origin = 'http://localhost:3000';
export const exampleTenantId = 'acme';
export const exampleTemplateId = 'tpl_0199a1b2c3d4';
export const exampleRequestId = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const exampleBatchId = '0199a1b2-d0e1-7f2a-9b3c-4d5e6f7a8b9c';
const exampleToolRequestId = '0199a1b2-e5f6-7a8b-9c0d-1e2f3a4b5c6d';
const exampleKeyId = 'key_0199a1b2c3d47e5f8a9b0c1d2e3f4a01';
const exampleNewKeyId = 'key_0199b7c8d9e07f1a8b2c3d4e5f6a7b02';
const exampleApiKey = 'prs_live_rTBx6kt2wH8U2ShJU1jQG4MUtgBNukPE2sAMjvoT1upxa9';
const createdAt = '2026-11-02T09:15:00.000Z';
const webhookUrl = 'https://example.com/hooks/pressroom';
const SHOWN_ONCE = 'Store this key now: it is not shown again.';

const exampleSignature = '5b1f0e3c9a7d42e8b6c1f0a9d3e7b2c48f6a1d0e9c3b7a5f2e8d4c1b0a9f3e7d';
/** A link as the embedded profile signs it (the distributed profile answers S3 presigned links). */
const signedLink = (key: string) => `${origin}/v1/files/${exampleTenantId}/${key}?expires=1795258801&signature=${exampleSignature}`;

// --- errors ------------------------------------------------------------------------------------

type FieldProblem = { field: string; message: string };

/** A body in the one error shape, as sendError writes it (field problems also spelled out in the top `message`). */
export function errorExample(code: string, message: string, details?: FieldProblem[] | Record<string, unknown>) {
  const spelled = Array.isArray(details) ? `${message} ${details.map((d) => `${d.field} ${d.message}`).join('; ')}` : message;
  return { message: spelled, error: { code, message, ...(details ? { details } : {}) } };
}

/** An error answer of a route: its description and an example in the one error shape. */
export function errorAnswer(
  description: string,
  code: string,
  message: string,
  details?: FieldProblem[] | Record<string, unknown>,
): ResponseSpec {
  return { description, schema: 'ErrorBody', example: errorExample(code, message, details) };
}

// --- renders -----------------------------------------------------------------------------------

const renderMetadata = { executionTime: '0.412 seconds', fileSize: '9.87 kB' };
export const successExample = { signedUrl: signedLink(`${exampleRequestId}.pdf`), metadata: renderMetadata };
export const queuedExample = {
  requestId: exampleRequestId,
  statusUrl: `${origin}/v1/pdf/status/${exampleRequestId}`,
  message: 'The render took longer than 30 seconds, so it was moved to a queue. Check statusUrl for the result.',
};
export const statusExample = { requestId: exampleRequestId, renderStatus: 'SUCCESS', ...successExample, externalId: 'invoice-2026-0042' };
/** The status of one render in each of its states (ONGOING carries no link; FAILED says why). */
export const statusExamples = {
  success: { summary: 'Rendered: the signed link and the render metadata', value: statusExample },
  ongoing: {
    summary: 'Accepted, not rendered yet',
    value: { requestId: exampleRequestId, renderStatus: 'ONGOING', signedUrl: '', metadata: {}, externalId: 'invoice-2026-0042' },
  },
  failed: {
    summary: 'Failed: the error in the one error shape’s `{code, message}`',
    value: {
      requestId: exampleRequestId,
      renderStatus: 'FAILED',
      signedUrl: '',
      metadata: {},
      externalId: 'invoice-2026-0042',
      error: { code: 'TEMPLATE_ERROR', message: 'it.customer is undefined (line 3)' },
    },
  },
};
/** The body POSTed to the webhook of an async render. */
export const webhookBodyExample = statusExample;

// --- batches -----------------------------------------------------------------------------------

const batchItemId = (i: number) => `0199a1b2-d0e1-7f2a-9b3c-4d5e6f7a8b${String(90 + i)}`;
export const batchExample = {
  batchRequestId: exampleBatchId,
  status: 'SUCCESS',
  total: 2,
  completed: 2,
  merge: true,
  results: [0, 1].map((i) => ({
    requestId: batchItemId(i),
    renderStatus: 'SUCCESS',
    signedUrl: signedLink(`${batchItemId(i)}.pdf`),
    metadata: { executionTime: `0.${381 + i * 17} seconds`, fileSize: `${(9.2 + i).toFixed(2)} kB` },
  })),
  mergedUrl: signedLink(`${exampleBatchId}-merged.pdf`),
};
/** A batch before (or without) its merge: no mergedUrl. */
const unmergedBatch = { batchRequestId: exampleBatchId, total: 2, merge: true };
/** A batch in each of its outcomes: still going, every item rendered, some items failed. */
export const batchExamples = {
  success: { summary: 'Every item rendered (and merged, with `merge: true`)', value: batchExample },
  ongoing: {
    summary: 'Still going: finished items already carry their link',
    value: {
      ...unmergedBatch,
      status: 'ONGOING',
      completed: 1,
      results: [batchExample.results[0], { requestId: batchItemId(1), renderStatus: 'ONGOING', signedUrl: '', metadata: {} }],
    },
  },
  partialSuccess: {
    summary: 'Some items failed: each failed item says why; nothing is merged',
    value: {
      ...unmergedBatch,
      status: 'PARTIAL_SUCCESS',
      completed: 2,
      results: [
        batchExample.results[0],
        {
          requestId: batchItemId(1),
          renderStatus: 'FAILED',
          signedUrl: '',
          metadata: {},
          error: { code: 'RENDER_TIMEOUT', message: 'The render did not finish within 30000 ms.' },
        },
      ],
    },
  },
};
export const batchAcceptedExample = {
  batchRequestId: exampleBatchId,
  statusUrl: `${origin}/v1/pdf/batch/status/${exampleBatchId}`,
  message: 'The batch took longer than 30 seconds, so it goes on in the background. Check statusUrl for the result.',
};

// --- PDF tools ---------------------------------------------------------------------------------

const urlValidUntil = '2026-11-21T11:00:01.531Z';
export const toolSuccessExample = {
  status: 'SUCCESS',
  url: signedLink(`${exampleToolRequestId}.pdf`),
  fileName: 'merged.pdf',
  urlValidUntil,
};
export const compressedExample = {
  ...toolSuccessExample,
  fileName: 'report-compressed.pdf',
  metadata: { originalSize: '2.41 MB', compressedSize: '612.30 KB', reduction: '75.2%' },
};
export const splitExample = {
  status: 'SUCCESS',
  totalParts: 2,
  fileName: 'contract.pdf',
  urlValidUntil,
  urls: [signedLink(`${exampleToolRequestId}.pdf`), signedLink(`${exampleToolRequestId}-part-2.pdf`)],
};
export const toolQueuedExample = {
  requestId: exampleToolRequestId,
  statusUrl: `${origin}/v1/tools/status/${exampleToolRequestId}`,
  message: 'The operation took longer than 30 seconds, so it goes on in the background. Check statusUrl for the result.',
};
export const toolStatusExample = { requestId: exampleToolRequestId, status: 'SUCCESS', result: toolSuccessExample, metadata: {} };
/** A PDF tool's operation in each of its states. */
export const toolStatusExamples = {
  success: { summary: 'Done: the result as the synchronous call answers it', value: toolStatusExample },
  ongoing: { summary: 'Still going', value: { requestId: exampleToolRequestId, status: 'ONGOING', result: null, metadata: {} } },
  failed: {
    summary: 'Failed: why, in `metadata`',
    value: {
      requestId: exampleToolRequestId,
      status: 'FAILED',
      result: null,
      metadata: { errorCode: 'INPUT_INVALID', errorMessage: 'The input is not a PDF: it starts with "<!DOCTYPE".' },
    },
  },
};
const uploadKey = `uploads/0199a1b2-f7a8-7b9c-8d0e-1f2a3b4c5d6e/contract.pdf`;
export const signedUploadExample = {
  presignedUploadUrl: `${origin}/v1/tools/uploads/${exampleTenantId}/${uploadKey}?expires=1795257000&signature=${exampleSignature}`,
  presignedGetUrl: signedLink(uploadKey),
  status: 'SUCCESS',
  fileName: 'contract.pdf',
  uploadUrlValidUntil: '2026-11-21T10:30:00.000Z',
  getUrlValidUntil: '2026-11-21T11:00:00.000Z',
};

// --- templates and assets ----------------------------------------------------------------------

const templateContent = '<h1>Hello <%= it.name %></h1>';
/** What inference makes of `it.name` (no declared dataSchema): a required variable of any type. */
const templateSchema = { type: 'object', properties: { name: {} }, required: ['name'] };
/** A template at `version` (of `latest`), as GET /v1/templates/{id} answers it. */
export function templateExample(version = 1, latest = version) {
  return {
    templateId: exampleTemplateId,
    name: 'hello',
    content: version === 1 ? templateContent : '<h1>Hi <%= it.name %></h1>',
    variables: { source: 'inferred', schema: templateSchema, names: ['name'] },
    version,
    latestVersion: latest,
    createdAt,
    updatedAt: version === 1 ? createdAt : '2026-11-20T16:42:10.000Z',
  };
}
export const templateListExample = { templates: [templateExample(2)] };
export const templateVersionsExample = {
  templateId: exampleTemplateId,
  latestVersion: 2,
  versions: [
    { version: 1, name: 'hello', createdAt },
    { version: 2, name: 'hello', createdAt: '2026-11-20T16:42:10.000Z' },
  ],
};
export const integrationTemplateListExample = {
  templates: [{ id: exampleTemplateId, displayName: 'hello', name: 'hello', createdAt, updatedAt: '2026-11-20T16:42:10.000Z', version: 2 }],
};
export const integrationTemplateExample = {
  template: {
    id: exampleTemplateId,
    displayName: 'hello',
    createdAt,
    updatedAt: '2026-11-20T16:42:10.000Z',
    style: { displayHeaderFooter: false },
    type: 'HTML',
    htmlTemplate: '<h1>Hi <%= it.name %></h1>',
    version: 2,
  },
};
export const integrationVariablesExample = {
  id: exampleTemplateId,
  version: 2,
  variables: [{ name: 'name', type: 'any', required: true }],
  schema: templateSchema,
};
export const assetExample = {
  name: 'logo.png',
  contentType: 'image/png',
  bytes: 5120,
  sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  url: 'https://assets.pressroom.invalid/logo.png',
  createdAt,
};
export const assetListExample = {
  assets: [
    assetExample,
    {
      ...assetExample,
      name: 'Inter-Regular.woff2',
      contentType: 'font/woff2',
      bytes: 98_312,
      url: 'https://assets.pressroom.invalid/Inter-Regular.woff2',
      sha256: '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8',
    },
  ],
};

// --- keys, connections, tenants ----------------------------------------------------------------

const keySummary = {
  keyId: exampleKeyId,
  prefix: 'prs_live_9KpL',
  label: 'ci',
  scopes: ['render', 'manage'],
  createdAt,
  lastUsedAt: '2026-11-21T09:58:00.000Z',
  status: 'active',
};
const newKeySummary = {
  ...keySummary,
  keyId: exampleNewKeyId,
  prefix: 'prs_live_rTBx',
  createdAt: '2026-11-21T10:05:00.000Z',
  lastUsedAt: null,
};
export const keyListExample = { keys: [keySummary] };
export const keyCreatedExample = { key: newKeySummary, apiKey: exampleApiKey, note: SHOWN_ONCE };
export const adminKeyCreatedExample = { tenantId: exampleTenantId, ...keyCreatedExample };
export const keyRevokedExample = { ...keySummary, status: 'revoked', revokedAt: '2026-11-21T10:05:00.000Z' };
export const keyRotatedExample = {
  key: newKeySummary,
  apiKey: exampleApiKey,
  previous: { ...keySummary, status: 'expiring', expiresAt: '2026-11-21T11:05:00.000Z', replacedBy: exampleNewKeyId },
  note: SHOWN_ONCE,
};
export const connectionBodyExample = {
  connectionId: 'invoices',
  bucket: 'acme-invoices',
  region: 'eu-central-1',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
export const connectionUpdateExample = {
  bucket: 'acme-invoices',
  region: 'eu-central-1',
  roleArn: 'arn:aws:iam::123456789012:role/pressroom-writer',
  externalId: 'pressroom-acme',
};
export const connectionExample = {
  connectionId: 'invoices',
  bucket: 'acme-invoices',
  region: 'eu-central-1',
  credentials: 'static',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  createdAt,
};
export const connectionListExample = { connections: [connectionExample] };
export const tenantExample = { tenantId: exampleTenantId, name: 'Acme', plan: 'high', createdAt };

// --- usage, webhooks, history ------------------------------------------------------------------

const usageDay = (date: string, tenantId: string, succeeded: number, failed: number) => ({
  date,
  tenantId,
  renders: { succeeded, failed },
  pages: succeeded * 3,
  bytes: succeeded * 101_376,
  renderSeconds: Math.round((succeeded + failed) * 4.1) / 10,
});
export const usageExample = {
  from: '2026-11-01',
  to: '2026-11-30',
  days: [usageDay('2026-11-20', exampleTenantId, 388, 2), usageDay('2026-11-21', exampleTenantId, 412, 3)],
};
export const adminUsageExample = {
  ...usageExample,
  days: [...usageExample.days, usageDay('2026-11-21', 'globex', 57, 0)],
};
export const webhookSecretExample = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5rOxf6bHUGk=',
  createdAt: '2026-11-21T10:05:00.000Z',
  previous: { secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD4J5BnKnMQ0E=', expiresAt: '2026-11-22T10:05:00.000Z' },
};
export const replayExample = { replayId: '0199a1c0-1a2b-7c3d-8e4f-5a6b7c8d9e0f', requestIds: [exampleRequestId] };
const webhookId = `msg_${exampleRequestId.replace(/-/g, '')}`;
export const deliveriesExample = {
  requestId: exampleRequestId,
  tenantId: exampleTenantId,
  webhookId,
  url: webhookUrl,
  renderStatus: 'SUCCESS',
  state: 'DELIVERED',
  completedAt: '2026-11-21T10:00:01.412Z',
  round: 0,
  attempts: [
    {
      round: 0,
      attempt: 1,
      startedAt: '2026-11-21T10:00:01.450Z',
      statusCode: 503,
      durationMs: 41,
      error: 'HTTP 503',
      outcome: 'retrying',
      nextAttemptAt: '2026-11-21T10:00:06.491Z',
    },
    { round: 0, attempt: 2, startedAt: '2026-11-21T10:00:06.495Z', statusCode: 200, durationMs: 80, outcome: 'delivered' },
  ],
  outcomes: [{ round: 0, outcome: 'DELIVERED', at: '2026-11-21T10:00:06.575Z', statusCode: 200 }],
  replays: [],
};

export const historyExample = {
  requestId: exampleRequestId,
  renderStatus: 'SUCCESS',
  externalId: 'invoice-2026-0042',
  template: { templateId: exampleTemplateId, templateVersion: 3 },
  chromium: 'Chromium 140.0.7339.185',
  events: [
    {
      eventId: '0199a1b2-c3d4-7e5f-8a9b-000000000001',
      type: 'RenderRequested',
      occurredAt: '2026-11-21T10:00:00.000Z',
      data: { mode: 'async', output: 'pdf', source: { kind: 'template', templateId: exampleTemplateId, templateVersion: 3 } },
    },
    {
      eventId: '0199a1b2-c3d4-7e5f-8a9b-000000000002',
      type: 'RenderSucceeded',
      occurredAt: '2026-11-21T10:00:01.412Z',
      data: { executionMs: 412, worker: 'render-worker-1', chromium: 'Chromium 140.0.7339.185', pages: 1 },
    },
    {
      eventId: '0199a1b2-c3d4-7e5f-8a9b-000000000003',
      type: 'WebhookAttempted',
      occurredAt: '2026-11-21T10:00:01.530Z',
      data: {
        webhookId,
        url: webhookUrl,
        round: 0,
        attempt: 1,
        renderStatus: 'SUCCESS',
        startedAt: '2026-11-21T10:00:01.450Z',
        statusCode: 200,
        durationMs: 80,
        outcome: 'delivered',
      },
    },
    {
      eventId: '0199a1b2-c3d4-7e5f-8a9b-000000000004',
      type: 'LinkIssued',
      occurredAt: '2026-11-21T10:00:01.531Z',
      data: { where: 'webhook', file: 'result', expiresAt: '2026-11-21T11:00:01.531Z' },
    },
  ],
};
export const renderListExample = {
  from: '2026-11-21T00:00:00.000Z',
  to: '2026-11-22T00:00:00.000Z',
  renders: [
    {
      requestId: exampleRequestId,
      requestedAt: '2026-11-21T10:00:00.000Z',
      mode: 'async',
      output: 'pdf',
      renderStatus: 'SUCCESS',
      externalId: 'invoice-2026-0042',
      template: { templateId: exampleTemplateId, templateVersion: 3 },
      completedAt: '2026-11-21T10:00:01.412Z',
    },
  ],
  next: exampleRequestId,
};

// --- operations --------------------------------------------------------------------------------

export const readyExample = { status: 'ready', checks: { log: 'ok', storage: 'ok' } };
export const unavailableExample = { status: 'unavailable', checks: { log: 'ok', redis: 'connect ECONNREFUSED 127.0.0.1:6379' } };
/** The start of this document (the example of GET /openapi.json). */
export const documentExample = {
  openapi: '3.1.0',
  info: { title: 'Pressroom', version: '1.0.0' },
  paths: { '/v1/pdf/sync': { post: { operationId: 'renderTemplateSync', tags: ['Renders'] } } },
};
