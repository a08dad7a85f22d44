export * from './json-logger.ts';
export * from './metrics.ts';
export * from './health.ts';
export * from './ops-server.ts';
export * from './event-loop-delay.ts';
export * from './metrics-endpoint.ts';
export * from './process-tree.ts';
export * from './timed-object-store.ts';
