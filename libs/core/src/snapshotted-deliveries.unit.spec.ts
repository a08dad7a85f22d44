import { deliveryStoreContract } from '@pressroom/testing';
import { createMemoryDocumentStore } from './adapters/memory-document-store.ts';
import { createSnapshottedDeliveries } from './snapshotted-deliveries.ts';

// The embedded profile's deliveries (reading through to a snapshot when one is attached: see
// deliveries-snapshot.int.spec.ts) keep the port's contract; in memory a "second process" is the same instance.
deliveryStoreContract('memory, snapshotted', {
  async createSpace() {
    const { store } = createSnapshottedDeliveries(createMemoryDocumentStore(), { inflightLeaseMs: 0 });
    return { open: async () => store, dispose: () => store.close() };
  },
});
