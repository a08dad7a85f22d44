import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import type { Catalog } from '@pressroom/core';
import { catalogContract } from '@pressroom/testing';
import { createRedisCatalog } from './redis-catalog.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');

catalogContract('redis', {
  async createSpace() {
    const keyPrefix = `test:${randomUUID()}:`;
    const opened: Catalog[] = [];
    return {
      async open() {
        const catalog = createRedisCatalog({ url, keyPrefix });
        opened.push(catalog);
        return catalog;
      },
      async dispose() {
        await Promise.all(opened.map((c) => c.close()));
        const admin = new Redis(url);
        await unlinkByPrefix(admin, keyPrefix);
        await admin.quit();
      },
    };
  },
});

describe('RedisCatalog layout', () => {
  it("keeps a tenant's templates in one hash under its prefix", async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const catalog = createRedisCatalog({ url, keyPrefix });
    const admin = new Redis(url);
    try {
      const at = '2030-01-01T00:00:00.000Z';
      await catalog.putTemplate({
        tenantId: 'acme',
        templateId: 'invoice',
        name: 'n',
        content: 'c',
        version: 1,
        createdAt: at,
        updatedAt: at,
      });
      expect(await admin.hkeys(`${keyPrefix}catalog:templates:acme`)).toEqual(['invoice']);
      expect(await admin.ttl(`${keyPrefix}catalog:templates:acme`)).toBe(-1);
    } finally {
      await catalog.close();
      await unlinkByPrefix(admin, keyPrefix);
      await admin.quit();
    }
  });
});
