import type { ObjectStore, S3ConnectionStoreFactory } from '@pressroom/core';

/**
 * Tenants' S3 connections whose S3 client (`@pressroom/s3`: `@aws-sdk/client-s3`, the presigner,
 * STS) is loaded when a connection is first used, not at start: most processes never use one,
 * and the embedded profile has no S3 of its own. A store is opened once per handle; the
 * connection cache of `createS3ConnectionStoreFactory` does the rest.
 */
export function lazyS3ConnectionStores(options: { stsEndpoint?: string }): S3ConnectionStoreFactory {
  let factory: Promise<S3ConnectionStoreFactory> | undefined;
  const load = () => (factory ??= import('@pressroom/s3').then((lib) => lib.createS3ConnectionStoreFactory(options)));
  return (connection) => {
    let opened: Promise<ObjectStore> | undefined;
    const store = () => (opened ??= load().then((open) => open(connection)));
    return {
      put: async (key, bytes, contentType) => (await store()).put(key, bytes, contentType),
      get: async (key) => (await store()).get(key),
      delete: async (key) => (await store()).delete(key),
      signedGetUrl: async (key, expiresInSeconds) => (await store()).signedGetUrl(key, expiresInSeconds),
      ping: async () => (await store()).ping(),
    };
  };
}
