import { optional, slice, Str } from './setting.ts';

/** The distributed views (status, templates, catalog, deliveries, idempotency keys) on Redis. */
export const redisSlice = slice({
  env: {
    REDIS_URL: Str('Redis URL (distributed profile).'),
    PRESSROOM_REDIS_PREFIX: Str('Prefix of every Redis key.', 'pressroom:'),
  },
  read(c) {
    return { redisUrl: optional(c.REDIS_URL), redisPrefix: c.PRESSROOM_REDIS_PREFIX };
  },
  check(config, profile) {
    return profile === 'distributed' && !config.redisUrl ? ['REDIS_URL: required by the distributed profile'] : [];
  },
});
