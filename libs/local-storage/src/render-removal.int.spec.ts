import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createEventFactory,
  createFileEventLog,
  createMemoryCatalog,
  createRenderRemoval,
  topicNames,
  type EventLog,
  type ObjectStore,
} from '@pressroom/core';
import type { LogEvent } from '@pressroom/schemas';
import { createLocalObjectStore } from './local-object-store.ts';

// The retention sweep on the local disk and the file log (both real): what it removes, what it
// records, and that a delete that failed is found and done again by the next sweep.

const R1 = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10';
const R2 = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a11';
const topics = topicNames('t');

describe('render removal on the local disk', () => {
  let dir: string;
  let log: EventLog;
  let store: ObjectStore;
  const now = new Date();
  const ids = {
    next: (() => {
      let n = 0;
      return () => `0199a000-0000-7000-8000-${String(++n).padStart(12, '0')}`;
    })(),
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pressroom-removal-'));
    log = await createFileEventLog({ dir: join(dir, 'log') });
    store = createLocalObjectStore({ dir: join(dir, 'files'), publicBaseUrl: 'http://files.test', signingSecret: 's' });
  });
  afterEach(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function stored(key: string, ageMs: number) {
    await store.put(key, new Uint8Array([1]), 'application/pdf');
    const then = new Date(now.getTime() - ageMs);
    await utimes(join(dir, 'files', 'objects', ...key.split('/')), then, then);
  }
  const removals = async () => {
    const events: LogEvent[] = [];
    await log.readAll([topics.completed], (r) => void events.push(r.event));
    return events.filter((e) => e.type === 'ArtifactRemoved');
  };

  it("removes the expired renders of plans with a retention, whole, recorded first; assets and other plans' files stay", async () => {
    const catalog = createMemoryCatalog();
    for (const [tenantId, plan] of [
      ['acme', 'high'],
      ['globex', 'standard'],
    ] as const) {
      await catalog.apply({
        eventId: ids.next(),
        type: 'TenantCreated',
        version: 1,
        occurredAt: now.toISOString(),
        tenantId,
        sequence: 1,
        data: { name: tenantId, plan },
      });
    }
    await stored(`acme/${R1}.pdf`, 60_000);
    await stored(`acme/${R1}.pdf.debug.json`, 60_000);
    await stored(`acme/${R2}.pdf`, 1_000); // young
    await stored('acme/assets/logo.png', 60_000);
    await stored(`globex/${R1}.pdf`, 60_000);
    // The first delete fails (a storage blip): the removal is on the log, the file is still there
    let failOnce = true;
    const flaky: ObjectStore = {
      ...store,
      list: store.list!.bind(store),
      delete: async (key) => {
        if (failOnce) {
          failOnce = false;
          throw new Error('storage blip');
        }
        return store.delete(key);
      },
    };
    const removal = createRenderRemoval({
      own: flaky,
      catalog,
      log,
      topics,
      event: createEventFactory({ clock: { now: () => now }, ids }),
      clock: { now: () => now },
      by: 'test',
    });

    await expect(removal.sweep({ high: 30_000 })).rejects.toThrow('storage blip');
    expect(await store.get(`acme/${R1}.pdf`)).toBeDefined();

    // The next sweep finds it again and finishes the job
    expect(await removal.sweep({ high: 30_000 })).toBe(1);
    expect(await store.get(`acme/${R1}.pdf`)).toBeUndefined();
    expect(await store.get(`acme/${R1}.pdf.debug.json`)).toBeUndefined();
    expect(await store.get(`acme/${R2}.pdf`)).toBeDefined();
    expect(await store.get('acme/assets/logo.png')).toBeDefined();
    expect(await store.get(`globex/${R1}.pdf`)).toBeDefined();
    const recorded = await removals();
    expect(recorded.map((e) => [e.requestId, e.tenantId, e.data])).toEqual([
      [R1, 'acme', { reason: 'EXPIRED', keys: [`acme/${R1}.pdf`, `acme/${R1}.pdf.debug.json`], by: 'test' }],
      [R1, 'acme', { reason: 'EXPIRED', keys: [`acme/${R1}.pdf`, `acme/${R1}.pdf.debug.json`], by: 'test' }],
    ]);

    // And a DELETE removes one render's files now, whatever their age
    expect(await removal.remove('acme', R2)).toEqual([`acme/${R2}.pdf`]);
    expect(await store.get(`acme/${R2}.pdf`)).toBeUndefined();
    expect((await removals()).at(-1)?.data.reason).toBe('DELETED');
  });
});
