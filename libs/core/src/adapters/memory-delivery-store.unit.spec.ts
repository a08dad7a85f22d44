import { deliveryStoreContract } from '@pressroom/testing';
import { createMemoryDeliveryStore } from './memory-delivery-store.ts';

// In memory a "second process" is the same instance.
deliveryStoreContract('memory', {
  async createSpace() {
    const store = createMemoryDeliveryStore();
    return { open: async () => store, dispose: () => store.close() };
  },
});
