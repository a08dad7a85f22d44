import { inject } from 'vitest';
import { templateViewContract } from '@pressroom/testing';
import { createRedisTemplateView } from './redis-template-view.ts';
import { redisSpace } from './test-support/redis-space.ts';

const url = inject('REDIS_URL');

templateViewContract('redis', { createSpace: redisSpace(url, (keyPrefix) => createRedisTemplateView({ url, keyPrefix })) });
