export * from './redis-status-view.ts';
export * from './redis-catalog.ts';
export { unlinkByPrefix } from './unlink-by-prefix.ts';
export * from './redis-template-view.ts';
export * from './redis-asset-index.ts';
export * from './redis-delivery-store.ts';
export * from './redis-stream-version-guard.ts';
export * from './redis-legacy-catalog.ts';
export * from './redis-idempotency-keys.ts';
