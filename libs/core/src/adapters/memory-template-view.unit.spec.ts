import { templateViewContract } from '@pressroom/testing';
import { createMemoryTemplateView } from './memory-template-view.ts';

// In memory a "second process" is the same instance: open() hands out one view per space.
templateViewContract('memory', {
  async createSpace() {
    const view = createMemoryTemplateView();
    return { open: async () => view, dispose: () => view.close() };
  },
});
