export * from './app.ts';
export * from './tenancy.ts';
