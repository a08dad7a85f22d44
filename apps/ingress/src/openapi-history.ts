const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
});
const template = {
  type: 'object',
  properties: { templateId: { type: 'string' }, templateVersion: { type: 'integer' } },
  required: ['templateId', 'templateVersion'],
};
const renderStatus = { type: 'string', enum: ['ONGOING', 'SUCCESS', 'FAILED'] };

/** The render-history paths of the OpenAPI document (see history.ts for the shapes). */
export const historyPaths = {
  '/v1/pdf/{requestId}/events': {
    get: {
      summary:
        'Every event of one of your renders, in order, read from the log, with the template version and the Chromium that rendered it.',
      parameters: [{ name: 'requestId', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': {
          description: 'The history.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  requestId: { type: 'string' },
                  renderStatus,
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
              },
            },
          },
        },
        '401': error('Missing or unknown API key.'),
        '404': error('Not found (or another tenant’s, or refused with 503).'),
      },
    },
  },
  '/v1/renders': {
    get: {
      summary: 'Your renders requested in [from, to), optionally only those with an externalId, in requestId order.',
      parameters: [
        { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Default: 24 hours before `to`.' },
        { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Default: now.' },
        { name: 'externalId', in: 'query', schema: { type: 'string', maxLength: 255 } },
        { name: 'after', in: 'query', schema: { type: 'string' }, description: 'The `next` of the previous page.' },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
      ],
      responses: {
        '200': {
          description: 'One page of renders.',
          content: {
            'application/json': {
              schema: {
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
                        renderStatus,
                        externalId: { type: 'string' },
                        template,
                        completedAt: { type: 'string', format: 'date-time' },
                      },
                      required: ['requestId', 'requestedAt', 'mode', 'output', 'renderStatus'],
                    },
                  },
                },
                required: ['from', 'to', 'renders'],
              },
            },
          },
        },
        '400': error('A parameter is invalid or unknown.'),
        '401': error('Missing or unknown API key.'),
      },
    },
  },
};
