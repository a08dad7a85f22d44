import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import type { IdempotencyKeys } from '@pressroom/core';
import { idempotencyKeysContract } from '@pressroom/testing';
import { createRedisIdempotencyKeys } from './redis-idempotency-keys.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');

// Every space is a fresh key prefix; every open() is a new instance with its own connection (another ingress).
idempotencyKeysContract('redis', {
  async createSpace() {
    const keyPrefix = `test:${randomUUID()}:`;
    const stores: IdempotencyKeys[] = [];
    return {
      async open() {
        const store = createRedisIdempotencyKeys({ url, keyPrefix });
        stores.push(store);
        return store;
      },
      async dispose() {
        await Promise.all(stores.map((s) => s.close()));
        const admin = new Redis(url);
        await unlinkByPrefix(admin, keyPrefix);
        await admin.quit();
      },
    };
  },
});
