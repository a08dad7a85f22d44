import * as S from '@pressroom/schemas';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ref = (name: string) => json({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: ref('ErrorBody') });

/** The webhook paths of the OpenAPI document (signing secret, replay, deliveries). */
export const webhookPaths = {
  '/v1/webhooks/secret': {
    get: {
      summary: 'Your webhook signing secret (created on first use), and the previous one during a rotation overlap.',
      responses: {
        '200': { description: 'The secret(s).', content: ref('WebhookSecretResponse') },
        '401': error('Missing or unknown API key.'),
      },
    },
  },
  '/v1/webhooks/secret/rotate': {
    post: {
      summary: 'Replace the signing secret; the previous one keeps signing too until `previous.expiresAt`.',
      responses: {
        '200': { description: 'The new secret(s).', content: ref('WebhookSecretResponse') },
        '401': error('Missing or unknown API key.'),
      },
    },
  },
  '/v1/webhooks/replay': {
    post: {
      summary: 'Deliver results again from the log: one request, or every result completed in [from, to).',
      requestBody: { required: true, content: ref('WebhookReplayBody') },
      responses: {
        '202': { description: 'Replays requested.', content: ref('WebhookReplayResponse') },
        '400': error('Invalid body or range.'),
        '404': error('No such delivery for this tenant.'),
      },
    },
  },
  '/v1/pdf/{requestId}/deliveries': {
    get: {
      summary: 'Every webhook attempt of an async render, and the outcome of each round.',
      parameters: [{ name: 'requestId', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': { description: 'The deliveries.', content: ref('DeliveryView') },
        '404': error('Not found (or another tenant’s).'),
      },
    },
  },
};

export const webhookSchemas = {
  WebhookSecretResponse: S.WebhookSecretResponse,
  WebhookReplayBody: S.WebhookReplayBody,
  WebhookReplayResponse: S.WebhookReplayResponse,
  DeliveryView: S.DeliveryView,
};
