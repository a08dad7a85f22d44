export * from './app.ts';
export { createTenant, issueApiKey, registerS3Connection, bootstrapDefaultTenant } from '@pressroom/core';
export * from './server.ts';
// The one error mapper, for the routes other packages hand the ingress (tested with it there).
export { errorMapper } from './http/error-mapper.ts';
export { openApiDocument } from './openapi.ts';
