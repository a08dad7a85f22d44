import { idempotencyKeysContract } from '@pressroom/testing';
import { systemClock } from '../ports/clock.ts';
import { createMemoryIdempotencyKeys } from './memory-idempotency-keys.ts';

// In memory a "second process" is the same instance (the embedded profile has one ingress).
idempotencyKeysContract('memory', {
  async createSpace() {
    const keys = createMemoryIdempotencyKeys(systemClock);
    return { open: async () => keys, dispose: () => keys.close() };
  },
});
