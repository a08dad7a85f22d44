import * as S from '@pressroom/schemas';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ref = (name: string) => json({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: ref('ErrorBody') });

function batchOp(summary: string, bodyName: string) {
  return {
    summary,
    requestBody: { required: true, content: ref(bodyName) },
    responses: {
      '200': {
        description: 'The finished batch (sync), or `{batchRequestId, statusUrl}` at once with `async: true`.',
        content: json({ oneOf: [{ $ref: '#/components/schemas/BatchResponse' }, { $ref: '#/components/schemas/BatchAcceptedResponse' }] }),
      },
      '202': { description: 'Not finished within the sync wait: poll statusUrl.', content: ref('BatchAcceptedResponse') },
      '400': error(
        'Invalid batch: more than 20 items, merge with PNG items, or invalid items (`details` names each as items.<i>.<field>).',
      ),
      '401': error('Missing or unknown API key.'),
      '403': error('Custom S3 storage needs the high plan.'),
      '413': error("Body above 3 MB, or PLAN_LIMIT_EXCEEDED: more items than the plan's batchMaxItems."),
      '415': error('Body is not application/json.'),
      '429': error(
        'RATE_LIMITED, CONCURRENCY_LIMITED (each item counts as a render in flight) or, async only, BACKLOG_FULL: nothing was taken; retry after Retry-After.',
      ),
      '503': error('The log cannot take the batch now, and none of it was taken; see Retry-After.'),
      '504': error(
        'OUTCOME_UNKNOWN: the batch may have been taken in part and this could not be settled in time; `details.statusUrl` tells once it is.',
      ),
    },
    callbacks: {
      batch: {
        '{$request.body#/webhook}': {
          post: {
            requestBody: { required: true, content: ref('BatchResponse') },
            responses: { '200': { description: 'Any 2xx acknowledges.' } },
          },
        },
      },
    },
  };
}

/** The batch endpoints of the OpenAPI document. */
export const batchPaths = {
  '/v1/pdf/batch': { post: batchOp('Render 1 to 20 stored templates, optionally merged into one PDF.', 'TemplateBatchBody') },
  '/v1/html-to-pdf/batch': { post: batchOp('Render 1 to 20 HTML documents, optionally merged into one PDF.', 'HtmlBatchBody') },
  '/v1/pdf/batch/status/{batchRequestId}': {
    get: {
      summary: 'Status of a batch and of each of its items.',
      parameters: [{ name: 'batchRequestId', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': { description: 'ONGOING, SUCCESS, PARTIAL_SUCCESS or FAILED.', content: ref('BatchResponse') },
        '401': error('Missing or unknown API key.'),
        '404': error('Not found (or another tenant’s).'),
      },
    },
  },
};

export const batchSchemas = {
  TemplateBatchBody: S.TemplateBatchBody,
  HtmlBatchBody: S.HtmlBatchBody,
  BatchResponse: S.BatchResponse,
  BatchAcceptedResponse: S.BatchAcceptedResponse,
};
