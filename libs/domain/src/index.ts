export * from './errors.ts';
export * from './status.ts';
export * from './render-metadata.ts';
export * from './artifact-key.ts';
export * from './webhook-body.ts';
export * from './address-policy.ts';
