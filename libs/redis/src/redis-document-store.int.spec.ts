import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { documentStoreContract } from '@pressroom/testing';
import { createRedisDocumentStore } from './redis-document-store.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';
import { redisSpace } from './test-support/redis-space.ts';

const url = inject('REDIS_URL');

documentStoreContract('redis', {
  createSpace: redisSpace(url, (keyPrefix) => createRedisDocumentStore({ url, keyPrefix, name: 'documents', connection: 'documents' })),
});

describe('RedisDocumentStore specifics', () => {
  it('keeps a plain document as its JSON text and a group as a hash, expiring them when told', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const store = createRedisDocumentStore({ url, keyPrefix, name: 'documents', connection: 'documents' });
    const admin = new Redis(url);
    try {
      const docs = store.collection<{ n: number }>({ name: 'd:', ttlMs: 60_000 });
      await docs.compareAndSet('a', undefined, { n: 1 });
      await docs.compareAndSet({ group: 'g', id: 'x' }, undefined, { n: 2 });
      expect(JSON.parse((await admin.get(`${keyPrefix}d:a`))!)).toEqual({ n: 1 });
      expect(await admin.hgetall(`${keyPrefix}d:g`)).toEqual({ x: '{"n":2}' });
      expect(await admin.pttl(`${keyPrefix}d:a`)).toBeGreaterThan(0);
      expect(await admin.pttl(`${keyPrefix}d:g`)).toBeGreaterThan(0);
    } finally {
      await store.close();
      await unlinkByPrefix(admin, keyPrefix);
      await admin.quit();
    }
  });
});
