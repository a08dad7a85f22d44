export * from './wait.ts';
export * from './status-view-contract.ts';
export * from './catalog-contract.ts';
export * from './object-store-contract.ts';
export * from './event-log-contract.ts';
export * from './delivery-store-contract.ts';
export * from './idempotency-keys-contract.ts';
export * from './asset-index-contract.ts';
