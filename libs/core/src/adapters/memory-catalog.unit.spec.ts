import { catalogContract } from '@pressroom/testing';
import type { Catalog } from '../ports/catalog.ts';
import { createMemoryCatalog } from './memory-catalog.ts';

catalogContract('memory', {
  async createSpace() {
    // One process's memory: a re-open sees the same instance.
    let catalog: Catalog | undefined;
    return {
      async open() {
        return (catalog ??= createMemoryCatalog());
      },
      async dispose() {
        await catalog?.close();
      },
    };
  },
});
