import { UsageResponse } from '@pressroom/schemas';

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
});
const day = (name: string) => ({ name, in: 'query', required: true, schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } });

/** DELETE of a render and the usage endpoint (routes/removal-routes.ts, routes/usage-routes.ts). */
export const retentionPaths = {
  '/v1/pdf/{requestId}': {
    delete: {
      summary: "Remove one of your renders' files now (recorded on the log); its status then answers 410 DELETED.",
      parameters: [{ name: 'requestId', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '204': { description: 'Removed (also when it already was).' },
        '401': error('Missing or unknown API key.'),
        '404': error('Not found (or another tenant’s).'),
        '409': error('CONFLICT: the render is still running.'),
      },
    },
  },
  '/v1/usage': {
    get: {
      summary: 'Your usage by day (UTC): renders by outcome, pages, bytes and render seconds, from the log.',
      parameters: [day('from'), day('to')],
      responses: {
        '200': { description: 'Days with renders, in date order.', content: { 'application/json': { schema: UsageResponse } } },
        '400': error('VALIDATION_FAILED: from/to are not days in order, or span more than 366 days.'),
        '401': error('Missing or unknown API key.'),
      },
    },
  },
};

/** What the status endpoint answers once a render's files are gone. */
export const removedStatus = {
  '410': error('EXPIRED (its plan’s retention ran out) or DELETED (you deleted it): the render’s files are gone.'),
};
