export * from './app.ts';
export * from './tenancy.ts';
export * from './server.ts';
