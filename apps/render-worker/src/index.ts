export * from './render-worker.ts';
export * from './batch-finisher.ts';
export * from './settings.ts';
export * from './render-side.ts';
