import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { assetIndexContract, assetRecord } from '@pressroom/testing';
import { createRedisAssetIndex, readLegacyRedisAssetIndex } from './redis-asset-index.ts';
import { redisSpace } from './test-support/redis-space.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');

assetIndexContract('redis', { createSpace: redisSpace(url, (keyPrefix) => createRedisAssetIndex({ url, keyPrefix })) });

describe('the asset index of before the log (ops assets import)', () => {
  it('reads the old `<prefix>assets:<tenantId>` hashes of this prefix only', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const admin = new Redis(url);
    try {
      await admin.hset(`${keyPrefix}assets:acme`, 'logo.png', JSON.stringify(assetRecord('acme', 'logo.png')));
      await admin.hset(`${keyPrefix}assets:beta`, 'font.woff2', JSON.stringify(assetRecord('beta', 'font.woff2')));
      await admin.hset(`other-${keyPrefix}assets:acme`, 'x.png', JSON.stringify(assetRecord('acme', 'x.png')));
      const records = await readLegacyRedisAssetIndex({ url, keyPrefix });
      expect(records.map((r) => `${r.tenantId}/${r.name}`).sort()).toEqual(['acme/logo.png', 'beta/font.woff2']);
    } finally {
      await unlinkByPrefix(admin, keyPrefix);
      await unlinkByPrefix(admin, `other-${keyPrefix}`);
      await admin.quit();
    }
  });
});
