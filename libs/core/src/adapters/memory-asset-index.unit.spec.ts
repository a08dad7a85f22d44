import { assetIndexContract } from '@pressroom/testing';
import { createMemoryAssetIndex } from './memory-asset-index.ts';

// In memory a "second process" is the same instance.
assetIndexContract('memory', {
  async createSpace() {
    const index = createMemoryAssetIndex();
    return { open: async () => index, dispose: () => index.close() };
  },
});
