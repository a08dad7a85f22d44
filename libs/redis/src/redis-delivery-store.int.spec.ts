import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import type { DeliveryStore } from '@pressroom/core';
import { deliveryStoreContract } from '@pressroom/testing';
import { createRedisDeliveryStore } from './redis-delivery-store.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');

// Every space is a fresh key prefix; every open() is a new instance with its own connection.
deliveryStoreContract('redis', {
  async createSpace() {
    const keyPrefix = `test:${randomUUID()}:`;
    const stores: DeliveryStore[] = [];
    return {
      async open() {
        const store = createRedisDeliveryStore({ url, keyPrefix });
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
