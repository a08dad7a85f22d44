export * from './render-worker.ts';
export * from './settings.ts';
