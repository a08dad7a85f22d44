import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import type { AssetIndex } from '@pressroom/core';
import { assetIndexContract } from '@pressroom/testing';
import { createRedisAssetIndex, readLegacyRedisAssetIndex } from './redis-asset-index.ts';
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

describe('the asset index of before the log (ops assets import)', () => {
  it('reads the old `<prefix>assets:<tenantId>` hashes of this prefix only', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const admin = new Redis(url);
    try {
      const record = (tenantId: string, name: string) => ({
        tenantId,
        name,
        contentType: 'image/png',
        bytes: 3,
        sha256: 'a'.repeat(64),
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      await admin.hset(`${keyPrefix}assets:acme`, 'logo.png', JSON.stringify(record('acme', 'logo.png')));
      await admin.hset(`${keyPrefix}assets:beta`, 'font.woff2', JSON.stringify(record('beta', 'font.woff2')));
      await admin.hset(`other-${keyPrefix}assets:acme`, 'x.png', JSON.stringify(record('acme', 'x.png')));
      const records = await readLegacyRedisAssetIndex({ url, keyPrefix });
      expect(records.map((r) => `${r.tenantId}/${r.name}`).sort()).toEqual(['acme/logo.png', 'beta/font.woff2']);
    } finally {
      await unlinkByPrefix(admin, keyPrefix);
      await unlinkByPrefix(admin, `other-${keyPrefix}`);
      await admin.quit();
    }
  });
});
