export * from './common.ts';
export * from './events.ts';
export * from './http.ts';
export * from './views.ts';
export * from './page-setup.ts';
export * from './template-events.ts';
export * from './assets.ts';
export * as Http from './http-types.ts';
export * from './webhooks.ts';
