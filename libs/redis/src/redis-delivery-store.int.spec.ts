import { inject } from 'vitest';
import { deliveryStoreContract } from '@pressroom/testing';
import { createRedisDeliveryStore } from './redis-delivery-store.ts';
import { redisSpace } from './test-support/redis-space.ts';

const url = inject('REDIS_URL');

deliveryStoreContract('redis', { createSpace: redisSpace(url, (keyPrefix) => createRedisDeliveryStore({ url, keyPrefix })) });
