import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { objectStoreContract } from '@pressroom/testing';
import { createS3ConnectionStoreFactory } from './s3-connection-store-factory.ts';
import { createS3ObjectStore, type S3ObjectStoreOptions } from './s3-object-store.ts';
import { deleteBucket } from '../../../test/support/s3.ts';

const endpoint = inject('S3_ENDPOINT');
const credentials = { region: 'us-east-1', accessKeyId: 'test-access-key', secretAccessKey: 'test-secret-key', forcePathStyle: true };
const settings = (bucket: string): S3ObjectStoreOptions => ({ endpoint, bucket, ...credentials });
const uniqueBucket = () => `pressroom-test-${randomUUID()}`;

const removeBucket = (bucket: string) => deleteBucket(endpoint, bucket);

objectStoreContract('S3 (S3Proxy)', {
  signatureParam: 'X-Amz-Signature',
  async createSpace() {
    const bucket = uniqueBucket();
    const store = createS3ObjectStore(settings(bucket));
    await store.ensureBucket();
    return {
      store,
      async dispose() {
        await removeBucket(bucket);
        store.close();
      },
    };
  },
});

describe('S3ObjectStore specifics', () => {
  it('ensureBucket creates a missing bucket and is idempotent, also concurrently', async () => {
    const bucket = uniqueBucket();
    const store = createS3ObjectStore(settings(bucket));
    try {
      await expect(store.ping()).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: false });
      const other = createS3ObjectStore(settings(bucket)); // another process, racing
      await Promise.all([store.ensureBucket(), store.ensureBucket(), other.ensureBucket()]);
      other.close();
      await store.ensureBucket();
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      await removeBucket(bucket).catch(() => undefined);
      store.close();
    }
  });

  it('signs links for the public endpoint when one is given', async () => {
    const store = createS3ObjectStore({ ...settings(uniqueBucket()), publicEndpoint: 'https://files.example.test' });
    try {
      const url = new URL(await store.signedGetUrl('acme/x.pdf', 3600));
      expect(url.origin).toBe('https://files.example.test');
      expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    } finally {
      store.close();
    }
  });

  it('reports wrong credentials as a non-retryable storage error, with no SDK type', async () => {
    const bucket = uniqueBucket();
    const good = createS3ObjectStore(settings(bucket));
    const bad = createS3ObjectStore({ ...settings(bucket), secretAccessKey: 'wrong' });
    try {
      await good.ensureBucket();
      const error = await bad.put('acme/x.pdf', new Uint8Array([1]), 'application/pdf').catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'PressroomError', code: 'DEPENDENCY_UNAVAILABLE', retryable: false });
    } finally {
      await removeBucket(bucket);
      good.close();
      bad.close();
    }
  });

  it('the connection factory reuses a client per connection and replaces it when the secret changes', async () => {
    const factory = createS3ConnectionStoreFactory({ maxClients: 2 });
    const bucket = uniqueBucket();
    try {
      const a = factory(settings(bucket));
      expect(factory(settings(bucket))).toBe(a);
      expect(factory({ ...settings(bucket), secretAccessKey: 'rotated' })).not.toBe(a);
      const b = factory(settings(uniqueBucket()));
      factory(settings(uniqueBucket()));
      expect(factory(settings(uniqueBucket()))).not.toBe(b);
      // and the stores it makes work against the server
      const store = factory(settings(bucket));
      const admin = createS3ObjectStore(settings(bucket));
      await admin.ensureBucket();
      admin.close();
      await store.put('acme/y.pdf', new Uint8Array([1, 2]), 'application/pdf');
      const res = await fetch(await store.signedGetUrl('acme/y.pdf', 60));
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([1, 2]));
    } finally {
      await removeBucket(bucket).catch(() => undefined);
      factory.close();
    }
  });
});
