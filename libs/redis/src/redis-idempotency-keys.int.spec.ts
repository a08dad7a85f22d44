import { inject } from 'vitest';
import { idempotencyKeysContract } from '@pressroom/testing';
import { createRedisIdempotencyKeys } from './redis-idempotency-keys.ts';
import { redisSpace } from './test-support/redis-space.ts';

const url = inject('REDIS_URL');

idempotencyKeysContract('redis', { createSpace: redisSpace(url, (keyPrefix) => createRedisIdempotencyKeys({ url, keyPrefix })) });
