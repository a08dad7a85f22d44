export * from './app.ts';
export { createTenant, issueApiKey, registerS3Connection, bootstrapDefaultTenant } from '@pressroom/core';
export * from './server.ts';
