import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { catalogContract } from '@pressroom/testing';
import { createRedisCatalog } from './redis-catalog.ts';
import { redisSpace } from './test-support/redis-space.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');

catalogContract('redis', { createSpace: redisSpace(url, (keyPrefix) => createRedisCatalog({ url, keyPrefix })) });

describe('RedisCatalog layout', () => {
  it("keeps a tenant's S3 connections in one hash under its prefix", async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const catalog = createRedisCatalog({ url, keyPrefix });
    const admin = new Redis(url);
    try {
      await catalog.apply({
        eventId: randomUUID(),
        type: 'S3ConnectionRegistered',
        version: 1,
        occurredAt: '2030-01-01T00:00:00.000Z',
        tenantId: 'acme',
        sequence: 1,
        data: {
          connectionId: 'main',
          bucket: 'b',
          region: 'eu-west-1',
          accessKeyId: 'AKIAEXAMPLE',
          sealedSecretAccessKey: 'v1.iv.tag.body',
        },
      });
      const key = `${keyPrefix}catalog:s3-connections:acme`;
      expect(await admin.type(key)).toBe('hash');
      expect(await admin.hkeys(key)).toEqual(['main']);
      expect(await admin.ttl(key)).toBe(-1);
    } finally {
      await catalog.close();
      await unlinkByPrefix(admin, keyPrefix);
      await admin.quit();
    }
  });
});
