export * from './status-projector.ts';
