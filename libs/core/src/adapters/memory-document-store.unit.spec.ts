import { describe, expect, it } from 'vitest';
import { documentStoreContract } from '@pressroom/testing';
import { createMemoryDocumentStore } from './memory-document-store.ts';

// In memory a "second process" is the same instance: open() hands out one store per space.
documentStoreContract('memory', {
  async createSpace() {
    const store = createMemoryDocumentStore();
    return { open: async () => store, dispose: () => store.close() };
  },
});

describe('MemoryDocumentStore specifics', () => {
  it('wakes a watcher of an id when a notify write announces it, and no one else', async () => {
    const store = createMemoryDocumentStore();
    const docs = store.collection<number>({ name: 's:', channel: 's-events' });
    const woken: string[] = [];
    const stop = store.watch('s-events', 'a', () => woken.push('a'));
    store.watch('s-events', 'b', () => woken.push('b'));
    await docs.compareAndSet('a', undefined, 1);
    await docs.compareAndSet('a', (await docs.get('a'))?.version, 2, { notify: true });
    stop();
    await docs.compareAndSet('a', (await docs.get('a'))?.version, 3, { notify: true });
    expect(woken).toEqual(['a']);
  });
});
