import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import type { AssetIndex } from '@pressroom/core';
import { assetIndexContract } from '@pressroom/testing';
import { createRedisAssetIndex } from './redis-asset-index.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');

// Every space is a fresh key prefix; every open() is a new instance with its own connection.
assetIndexContract('redis', {
  async createSpace() {
    const keyPrefix = `test:${randomUUID()}:`;
    const indexes: AssetIndex[] = [];
    return {
      async open() {
        const index = createRedisAssetIndex({ url, keyPrefix });
        indexes.push(index);
        return index;
      },
      async dispose() {
        await Promise.all(indexes.map((s) => s.close()));
        const admin = new Redis(url);
        await unlinkByPrefix(admin, keyPrefix);
        await admin.quit();
      },
    };
  },
});
