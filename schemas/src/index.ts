export * from './common.ts';
export * from './events.ts';
export * from './http.ts';
export * from './views.ts';
export * as Http from './http-types.ts';
export * from './webhooks.ts';
