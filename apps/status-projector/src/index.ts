export * from './status-projector.ts';
export * from './template-projector.ts';
export * from './catalog-projector.ts';
export * from './asset-projector.ts';
