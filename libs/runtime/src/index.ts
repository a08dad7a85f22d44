export * from './runtime.ts';
export * from './renderer.ts';
export * from './secret-key.ts';
export * from './shutdown.ts';
export * from './read-config.ts';
export * from './process-faults.ts';
export * from './config.ts';
export * from './pdf-tools.ts';
