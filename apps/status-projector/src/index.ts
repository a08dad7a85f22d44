export * from './status-projector.ts';
export * from './template-projector.ts';
