import { createHash } from 'node:crypto';
import type { ObjectStore, S3ConnectionStoreFactory } from '@pressroom/core';
import { createS3ObjectStore, type S3ObjectStore } from './s3-object-store.ts';
import { assumeRoleCredentials } from './assume-role.ts';

/**
 * Makes the ObjectStore of a tenant's S3 connection (ArtifactStorage calls it on every use),
 * keeping one client per (endpoint, region, bucket, accessKeyId, path style) so sockets and
 * credentials are reused across renders. A changed secret for the same key id replaces the
 * cached client, so a rotated secret takes effect at once. Beyond `maxClients` the least
 * recently used client is forgotten, not destroyed: a render may still be using it, and its
 * idle keep-alive sockets close by themselves.
 */
export function createS3ConnectionStoreFactory(
  options: {
    maxClients?: number;
    /** Where connections with a role (roleArn) assume it; default AWS STS of the connection's region. */
    stsEndpoint?: string;
  } = {},
): S3ConnectionStoreFactory & { close(): void } {
  const maxClients = Math.max(1, options.maxClients ?? 64);
  const cache = new Map<string, { secret: string; store: S3ObjectStore }>();

  const factory = (connection: Parameters<S3ConnectionStoreFactory>[0]): ObjectStore => {
    const id = JSON.stringify([
      connection.endpoint ?? '',
      connection.region,
      connection.bucket,
      connection.accessKeyId ?? '',
      connection.roleArn ?? '',
      connection.externalId ?? '',
      connection.forcePathStyle ?? false,
    ]);
    const secret = createHash('sha256')
      .update(connection.secretAccessKey ?? '')
      .digest('hex');
    const cached = cache.get(id);
    cache.delete(id); // re-inserted below: Map order is recency order
    if (cached && cached.secret === secret) {
      cache.set(id, cached);
      return cached.store;
    }
    const { roleArn, externalId, ...rest } = connection;
    const store = createS3ObjectStore(
      roleArn
        ? {
            ...rest,
            credentials: assumeRoleCredentials({
              roleArn,
              region: connection.region,
              ...(externalId ? { externalId } : {}),
              ...(options.stsEndpoint ? { stsEndpoint: options.stsEndpoint } : {}),
            }),
          }
        : rest,
    );
    cache.set(id, { secret, store });
    // The newest entry is last in the Map, so this drops only older ones.
    while (cache.size > maxClients) cache.delete(cache.keys().next().value as string);
    return store;
  };
  return Object.assign(factory, {
    close() {
      for (const entry of cache.values()) entry.store.close();
      cache.clear();
    },
  });
}
