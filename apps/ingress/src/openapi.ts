import * as S from '@pressroom/schemas';
import { webhookPaths, webhookSchemas } from './openapi-webhooks.ts';
import { historyPaths } from './openapi-history.ts';
import { removedStatus, retentionPaths } from './openapi-retention.ts';
import { templatePaths, templateSchemas } from './openapi-templates.ts';
import { batchPaths, batchSchemas } from './openapi-batch.ts';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const error = (description: string) => ({ description, content: json({ $ref: '#/components/schemas/ErrorBody' }) });
const body = (name: string) => ({ required: true, content: json({ $ref: `#/components/schemas/${name}` }) });
const common = {
  '400': error('Malformed JSON or invalid fields (`details` names each).'),
  '401': error('Missing or unknown API key.'),
  '413': error('Body above the size limit.'),
  '415': error('Body is not application/json.'),
  '503': error('The log cannot take the request now; see Retry-After.'),
};
const renderErrors = {
  ...common,
  '403': error('Custom S3 storage needs the high plan.'),
  '404': error('Unknown template.'),
  '409': error('IDEMPOTENCY_KEY_IN_USE: the first request with this Idempotency-Key is still being taken; retry later.'),
  '503': error(
    'The log did not take the request in time (see Retry-After), and it proves the request was not taken: it is never ' +
      'rendered or delivered. Retrying with the same Idempotency-Key is a new attempt.',
  ),
};
const outcomeUnknown =
  'OUTCOME_UNKNOWN: the request may have reached the log and its withdrawal could not be recorded in time, so it may or ' +
  'may not run; `details.requestId` and `details.statusUrl` (also X-Request-Id) name it, its status answers 404 once it ' +
  'is withdrawn (or never written) and the result if it ran. Retrying with the same Idempotency-Key is safe. Retry-After.';
const idempotencyKey = {
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

function syncOp(summary: string, bodyName: string) {
  return {
    summary,
    parameters: [idempotencyKey],
    requestBody: body(bodyName),
    responses: {
      '200': { description: 'Rendered within the wait.', content: json({ $ref: '#/components/schemas/SyncSuccessResponse' }) },
      '202': { description: 'Still rendering: queued; poll statusUrl.', content: json({ $ref: '#/components/schemas/QueuedResponse' }) },
      '422': error(
        "The render failed by the request's doing (TEMPLATE_ERROR, NAVIGATION_REFUSED, PAGE_SETUP_INVALID, OUTPUT_TOO_LARGE), or IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with another request.",
      ),
      '504': error(`The render hit its time limit; or ${outcomeUnknown}`),
      ...renderErrors,
    },
  };
}
function asyncOp(summary: string, bodyName: string) {
  return {
    summary,
    parameters: [idempotencyKey],
    requestBody: body(bodyName),
    responses: {
      '200': {
        description: 'Accepted; the result is POSTed to `webhook`.',
        content: json({ $ref: '#/components/schemas/AsyncAcceptedResponse' }),
      },
      '422': error('IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with another request.'),
      '504': error(outcomeUnknown),
      ...renderErrors,
    },
    callbacks: {
      result: {
        '{$request.body#/webhook}': {
          post: {
            requestBody: body('WebhookBody'),
            responses: { '200': { description: 'Any 2xx acknowledges the delivery.' } },
          },
        },
      },
    },
  };
}

/** The OpenAPI document of the public API, generated from the same TypeBox schemas as the code. */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const templateResource = { description: 'The template.', content: json({ $ref: '#/components/schemas/TemplateResource' }) };
  const notFound = error('Not found (or another tenant’s).');
  return {
    openapi: '3.1.0',
    info: { title: 'Pressroom', version: '1.0.0', description: 'Render templates and HTML to PDF or PNG.' },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths: {
      '/v1/pdf/sync': { post: syncOp('Render a stored template, waiting for the file.', 'TemplateSyncBody') },
      '/v1/html-to-pdf/sync': { post: syncOp('Render raw HTML, waiting for the file.', 'HtmlSyncBody') },
      '/v1/pdf/async': { post: asyncOp('Render a stored template; the result goes to the webhook.', 'TemplateAsyncBody') },
      '/v1/html-to-pdf/async': { post: asyncOp('Render raw HTML; the result goes to the webhook.', 'HtmlAsyncBody') },
      '/v1/pdf/status/{requestId}': {
        get: {
          summary: 'Status of a render.',
          parameters: [{ name: 'requestId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'ONGOING, SUCCESS or FAILED.', content: json({ $ref: '#/components/schemas/StatusResponse' }) },
            '401': common['401'],
            '404': notFound,
            ...removedStatus,
          },
        },
      },
      '/v1/templates': {
        get: { summary: 'List your templates.', responses: { '200': { description: 'Templates.' }, '401': common['401'] } },
        post: { summary: 'Create a template.', requestBody: body('TemplateWriteBody'), responses: { '201': templateResource, ...common } },
      },
      '/v1/templates/{templateId}': {
        parameters: [{ name: 'templateId', in: 'path', required: true, schema: { type: 'string' } }],
        get: { summary: 'Read a template.', responses: { '200': templateResource, '404': notFound } },
        put: {
          summary: 'Revise a template (version + 1).',
          requestBody: body('TemplateWriteBody'),
          responses: { '200': templateResource, '404': notFound, ...common },
        },
        delete: { summary: 'Delete a template.', responses: { '204': { description: 'Deleted.' }, '404': notFound } },
      },
      ...webhookPaths,
      ...historyPaths,
      ...retentionPaths,
      ...templatePaths,
      ...batchPaths,
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
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
        TemplateWriteBody: S.TemplateWriteBody,
        TemplateResource: S.TemplateResource,
        ...webhookSchemas,
        ...templateSchemas,
        ...batchSchemas,
      },
    },
  };
}
