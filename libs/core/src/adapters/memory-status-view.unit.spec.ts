import { statusViewContract } from '@pressroom/testing';
import { createMemoryStatusView } from './memory-status-view.ts';

// In memory a "second process" is the same instance: open() hands out one view per space.
statusViewContract('memory', {
  async createSpace() {
    const view = createMemoryStatusView();
    return { open: async () => view, dispose: () => view.close() };
  },
});
