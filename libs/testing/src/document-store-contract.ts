import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { project, projectMany, type DocumentStore } from '@pressroom/core';
import type { Projection } from '@pressroom/domain';

/**
 * One isolated namespace of a document store, owned by one test. Every store `open()` returns
 * shares the same data (Redis: a new instance with its own connection, as another process would
 * have; memory: the same instance).
 */
export interface DocumentStoreSpace {
  open(): Promise<DocumentStore>;
  /** Closes every store opened and removes what the space stored. */
  dispose(): Promise<void>;
}

interface Tally {
  total: number;
  seen: string[];
}
interface Add {
  counter: string;
  eventId: string;
  by: number;
}

/** A projection for the tests: counts additions per counter, each eventId once. */
const tally: Projection<Add, Tally> = {
  canHandle: (e): e is Add => typeof e === 'object' && e !== null && 'counter' in e,
  keyOf: (e) => e.counter,
  evolve: (current, e) =>
    current?.seen.includes(e.eventId) ? current : { total: (current?.total ?? 0) + e.by, seen: [...(current?.seen ?? []), e.eventId] },
};

export function documentStoreContract(name: string, deps: { createSpace: () => Promise<DocumentStoreSpace> }): void {
  describe(`DocumentStore contract (${name})`, () => {
    let space: DocumentStoreSpace | undefined;
    const fresh = async () => (space = await deps.createSpace());
    afterEach(async () => {
      await space?.dispose();
      space = undefined;
    });

    it('creates a document only where there is none, and replaces it only at the version read', async () => {
      const store = await (await fresh()).open();
      const docs = store.collection<{ n: number }>({ name: 'c:' });
      expect(await docs.get('a')).toBeUndefined();
      expect(await docs.compareAndSet('a', undefined, { n: 1 })).toBe(true);
      expect(await docs.compareAndSet('a', undefined, { n: 9 })).toBe(false);
      const first = (await docs.get('a'))!;
      expect(first.doc).toEqual({ n: 1 });
      expect(await docs.compareAndSet('a', first.version, { n: 2 })).toBe(true);
      expect(await docs.compareAndSet('a', first.version, { n: 3 })).toBe(false);
      expect((await docs.get('a'))?.doc).toEqual({ n: 2 });
      expect(await docs.compareAndSet('missing', first.version, { n: 5 })).toBe(false);
      expect(await docs.get('missing')).toBeUndefined();
    });

    it('keeps groups apart, lists a group, and reads many keys at once in order', async () => {
      const store = await (await fresh()).open();
      const docs = store.collection<{ id: string }>({ name: 'g:' });
      await docs.compareAndSet({ group: 't1', id: 'x' }, undefined, { id: 't1/x' });
      await docs.compareAndSet({ group: 't1', id: 'y' }, undefined, { id: 't1/y' });
      await docs.compareAndSet({ group: 't2', id: 'x' }, undefined, { id: 't2/x' });
      await docs.compareAndSet('plain', undefined, { id: 'plain' });
      expect((await docs.list('t1')).map((d) => d.id).sort()).toEqual(['t1/x', 't1/y']);
      expect(await docs.list('nobody')).toEqual([]);
      const many = await docs.getMany([{ group: 't2', id: 'x' }, 'nothing', { group: 't1', id: 'y' }, 'plain', { group: 't9', id: 'x' }]);
      expect(many.map((v) => v?.doc.id)).toEqual(['t2/x', undefined, 't1/y', 'plain', undefined]);
      expect(await store.collection<{ id: string }>({ name: 'other:' }).list('t1')).toEqual([]);
    });

    it('loses no change when two processes apply events to one document at once', async () => {
      const s = await fresh();
      const [a, b] = [await s.open(), await s.open()];
      const events: Add[] = Array.from({ length: 24 }, (_, i) => ({ counter: 'k', eventId: randomUUID(), by: i + 1 }));
      const docsA = a.collection<Tally>({ name: 't:' });
      const docsB = b.collection<Tally>({ name: 't:' });
      // Every event twice (a redelivery), half through each process.
      await Promise.all(events.flatMap((e, i) => [project(i % 2 ? docsA : docsB, tally, e), project(i % 2 ? docsB : docsA, tally, e)]));
      const result = (await docsA.get('k'))?.doc;
      expect(result?.total).toBe((24 * 25) / 2);
      expect(result?.seen).toHaveLength(24);
      expect(await project(docsA, tally, { unrelated: true })).toBeUndefined();
    });

    it('writes many compare-and-sets in one call, each only at the version it expects', async () => {
      const store = await (await fresh()).open();
      const docs = store.collection<{ n: number }>({ name: 'm:' });
      await docs.compareAndSet('taken', undefined, { n: 1 });
      const taken = (await docs.get('taken'))!;
      const answers = await docs.compareAndSetMany([
        { key: 'new', expected: undefined, next: { n: 10 } },
        { key: 'taken', expected: undefined, next: { n: 99 } }, // exists: refused
        { key: { group: 'g', id: 'x' }, expected: undefined, next: { n: 20 } },
        { key: 'taken', expected: taken.version, next: { n: 2 } },
      ]);
      expect(answers).toEqual([true, false, true, true]);
      const read = await docs.getMany(['new', 'taken', { group: 'g', id: 'x' }]);
      expect(read.map((v) => v?.doc.n)).toEqual([10, 2, 20]);
      expect(await docs.compareAndSetMany([])).toEqual([]);
    });

    it('applies a batch of events like one project per event, and loses nothing to a writer in between', async () => {
      const s = await fresh();
      const [a, b] = [await s.open(), await s.open()];
      const docsA = a.collection<Tally>({ name: 'pm:' });
      const docsB = b.collection<Tally>({ name: 'pm:' });
      const events: Add[] = Array.from({ length: 30 }, (_, i) => ({ counter: `k${i % 3}`, eventId: randomUUID(), by: i + 1 }));
      await projectMany(docsA, tally, [...events.slice(0, 20), { unrelated: true }, events[0]]); // a redelivery too
      // The other process applies the rest while this one applies them all again in one batch.
      await Promise.all([projectMany(docsA, tally, events), ...events.slice(20).map((e) => project(docsB, tally, e))]);
      const totals = (await docsA.getMany(['k0', 'k1', 'k2'])).map((v) => v?.doc.total);
      const want = [0, 1, 2].map((k) => events.filter((_, i) => i % 3 === k).reduce((sum, e) => sum + e.by, 0));
      expect(totals).toEqual(want);
      expect((await docsB.get('k1'))?.doc.seen).toHaveLength(10);
    });

    it('clears documents and markers under a prefix only, and keeps markers until then', async () => {
      const store = await (await fresh()).open();
      const mine = store.collection<number>({ name: 'mine:' });
      const theirs = store.collection<number>({ name: 'theirs:' });
      await mine.compareAndSet('a', undefined, 1);
      await mine.compareAndSet({ group: 'g', id: 'b' }, undefined, 2);
      await theirs.compareAndSet('a', undefined, 3);
      expect(await store.isMarked('mine:~built')).toBe(false);
      await store.mark('mine:~built');
      await store.mark('theirs:~built');
      expect(await store.isMarked('mine:~built')).toBe(true);
      await store.clear('mine:');
      expect(await mine.get('a')).toBeUndefined();
      expect(await mine.list('g')).toEqual([]);
      expect(await store.isMarked('mine:~built')).toBe(false);
      expect((await theirs.get('a'))?.doc).toBe(3);
      expect(await store.isMarked('theirs:~built')).toBe(true);
    });
  });
}
