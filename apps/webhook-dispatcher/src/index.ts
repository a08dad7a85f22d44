export * from './webhook-dispatcher.ts';
