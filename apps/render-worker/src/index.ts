export * from './render-worker.ts';
