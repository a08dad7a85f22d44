export * from './s3-object-store.ts';
export * from './s3-connection-store-factory.ts';
export type { S3Settings } from './s3-client.ts';
export * from './assume-role.ts';
