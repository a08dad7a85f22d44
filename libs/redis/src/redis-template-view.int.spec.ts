import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import type { TemplateView } from '@pressroom/core';
import { templateViewContract } from '@pressroom/testing';
import { createRedisTemplateView } from './redis-template-view.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');

// Every space is a fresh key prefix; every open() is a new instance with its own connection,
// as another process would have.
templateViewContract('redis', {
  async createSpace() {
    const keyPrefix = `test:${randomUUID()}:`;
    const views: TemplateView[] = [];
    return {
      async open() {
        const view = createRedisTemplateView({ url, keyPrefix });
        views.push(view);
        return view;
      },
      async dispose() {
        await Promise.all(views.map((v) => v.close()));
        const admin = new Redis(url);
        await unlinkByPrefix(admin, keyPrefix);
        await admin.quit();
      },
    };
  },
});
