import { describe, expect, it } from 'vitest';
import type { RenderRequested } from '@pressroom/schemas';
import { createPayloadHandoff, createStoredPayloads, type StoredPayloads } from './stored-payloads.ts';
import type { ObjectStore } from './ports/object-store.ts';
import type { PayloadCopies } from './ports/payload-copies.ts';
import type { Catalog } from './ports/catalog.ts';
import type { EventLog, TopicNames } from './ports/event-log.ts';
import type { EventFactory } from './event-factory.ts';
import { createRenderRemoval } from './render-removal.ts';

/** An object store whose puts fail as a storage outage does (the rest is never reached here). */
function refusingStore(calls: { puts: number }): ObjectStore {
  const never = () => Promise.reject(new Error('not used'));
  return {
    put: async () => {
      calls.puts++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    },
    get: never,
    delete: never,
    signedGetUrl: never,
    ping: never,
  };
}

/** The ingress's side: the requests as they go on the log, once their payloads are stored. */
async function stored(payloads: StoredPayloads, requests: RenderRequested[], deadlineMs: number): Promise<RenderRequested[]> {
  const staged = await payloads.stage(requests, deadlineMs);
  await staged.stored;
  return staged.requests;
}

const requested = {
  type: 'RenderRequested',
  requestId: '01a20000-0000-7000-8000-000000000001',
  tenantId: 'tenant-a',
  data: { mode: 'sync', source: { kind: 'html', html: '<p>hi</p>' }, output: 'pdf', storage: { kind: 'default' } },
} as unknown as RenderRequested;

describe('stored payloads: the ingress side when our storage is down', () => {
  it('retries the put briefly, then refuses with a retryable DEPENDENCY_UNAVAILABLE (nothing accepted: 503)', async () => {
    const calls = { puts: 0 };
    const payloads = createStoredPayloads({ own: refusingStore(calls), sleep: async () => {} });
    const refused = await stored(payloads, [requested], Date.now() + 10_000).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: true });
    expect(String((refused as Error).message)).toMatch(/nothing was accepted/);
    expect(calls.puts).toBe(3);
  });

  it('gives up at the request deadline instead of spending the retries past it', async () => {
    const calls = { puts: 0 };
    const payloads = createStoredPayloads({ own: refusingStore(calls), sleep: async () => {} });
    await expect(stored(payloads, [requested], Date.now() + 50)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    expect(calls.puts).toBe(1);
  });
});

/** An object store in memory, counting reads (get). */
function memoryStore(reads: { gets: number }): ObjectStore {
  const objects = new Map<string, Uint8Array>();
  const never = () => Promise.reject(new Error('not used'));
  return {
    put: async (key, bytes) => void objects.set(key, bytes),
    get: async (key) => {
      reads.gets++;
      const bytes = objects.get(key);
      return bytes && { bytes, contentType: 'application/json' };
    },
    delete: async (key) => void objects.delete(key),
    size: async (key) => objects.get(key)?.byteLength,
    list: async function* (prefix) {
      for (const key of objects.keys()) if (key.startsWith(prefix)) yield { key, lastModified: new Date() };
    },
    signedGetUrl: never,
    ping: never,
  };
}

/** A stored source naming `key` (hash and size of nothing in particular). */
const storedSourceFor = (key: string): Parameters<StoredPayloads['resolve']>[0] => ({
  kind: 'stored',
  of: 'html',
  payload: { key, sha256: 'a'.repeat(64), bytes: 10 },
});

const storedRef = (r: RenderRequested) => (r.data.source as Extract<RenderRequested['data']['source'], { kind: 'stored' }>).payload;

describe('stored payloads: handed from the ingress to the worker of the same process', () => {
  it('renders the source the ingress stored without reading it back, once', async () => {
    const reads = { gets: 0 };
    const own = memoryStore(reads);
    const handoff = createPayloadHandoff();
    const [onLog] = await stored(createStoredPayloads({ own, handoff }), [requested], Date.now() + 10_000);
    const worker = createStoredPayloads({ own, handoff });
    expect(await worker.resolve(onLog!.data.source)).toEqual({ ok: true, source: { kind: 'html', html: '<p>hi</p>' } });
    expect(reads.gets).toBe(0);
    // Taken once: a redelivery reads it back from storage, with the same answer.
    expect(await worker.resolve(onLog!.data.source)).toEqual({ ok: true, source: { kind: 'html', html: '<p>hi</p>' } });
    expect(reads.gets).toBe(1);
    expect(storedRef(onLog!).key).toBe('tenant-a/01a20000-0000-7000-8000-000000000001.payload.json');
  });

  it('still fails PAYLOAD_REMOVED when the payload was removed before the render', async () => {
    const own = memoryStore({ gets: 0 });
    const handoff = createPayloadHandoff();
    const [onLog] = await stored(createStoredPayloads({ own, handoff }), [requested], Date.now() + 10_000);
    await own.delete(storedRef(onLog!).key);
    expect(await createStoredPayloads({ own, handoff }).resolve(onLog!.data.source)).toMatchObject({ ok: false, code: 'PAYLOAD_REMOVED' });
  });

  it('never answers a held payload for a reference with another hash, and drops the oldest past its byte budget', () => {
    const handoff = createPayloadHandoff({ maxBytes: 10 });
    const source = { kind: 'html', html: 'x' } as const;
    handoff.hold({ key: 'a', sha256: 'h1', bytes: 6 }, source);
    expect(handoff.take({ key: 'a', sha256: 'h2', bytes: 6 })).toBeUndefined();
    expect(handoff.take({ key: 'a', sha256: 'h1', bytes: 6 })).toBeUndefined(); // a mismatch drops it
    handoff.hold({ key: 'a', sha256: 'h1', bytes: 6 }, source);
    handoff.hold({ key: 'b', sha256: 'h2', bytes: 6 }, source);
    expect(handoff.take({ key: 'a', sha256: 'h1', bytes: 6 })).toBeUndefined();
    expect(handoff.take({ key: 'b', sha256: 'h2', bytes: 6 })?.source).toBe(source);
  });
});

/** A memory store whose puts wait until `finish` (resolving, or failing as a full disk does). */
function heldPutStore(reads: { gets: number; sizes: number }) {
  const inner = memoryStore(reads);
  let finish!: (ok: boolean) => void;
  const done = new Promise<boolean>((r) => (finish = r));
  const store: ObjectStore = {
    ...inner,
    put: async (key, bytes, contentType) => {
      if (!(await done)) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      await inner.put(key, bytes, contentType);
    },
    size: async (key) => {
      reads.sizes++;
      return inner.size!(key);
    },
  };
  return { store, finish };
}

describe('stored payloads: the put beside the append when the worker is in the same process', () => {
  const html = { kind: 'html', html: '<p>hi</p>' };

  it('stages at once; the worker renders from memory while the put runs; `stored` settles when the put does', async () => {
    const reads = { gets: 0, sizes: 0 };
    const { store, finish } = heldPutStore(reads);
    const handoff = createPayloadHandoff();
    const staged = await createStoredPayloads({ own: store, handoff }).stage([requested], Date.now() + 10_000);
    let storedYet = false;
    void staged.stored.then(() => (storedYet = true));
    expect(storedRef(staged.requests[0]!).key).toBe('tenant-a/01a20000-0000-7000-8000-000000000001.payload.json');
    // The worker takes it before the put ended: nothing could have removed it yet, so storage is not asked.
    expect(await createStoredPayloads({ own: store, handoff }).resolve(staged.requests[0]!.data.source)).toEqual({
      ok: true,
      source: html,
    });
    expect(reads).toEqual({ gets: 0, sizes: 0 });
    expect(storedYet).toBe(false);
    finish(true);
    await staged.stored;
    expect(await store.size!(storedRef(staged.requests[0]!).key)).toBeGreaterThan(0);
  });

  it('rejects `stored` when the put fails (the ingress then withdraws); the worker still renders what it was handed', async () => {
    const { store, finish } = heldPutStore({ gets: 0, sizes: 0 });
    const handoff = createPayloadHandoff();
    const staged = await createStoredPayloads({ own: store, handoff, sleep: async () => {} }).stage([requested], Date.now() + 10_000);
    finish(false);
    await expect(staged.stored).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: true });
    expect(await createStoredPayloads({ own: store, handoff }).resolve(staged.requests[0]!.data.source)).toEqual({
      ok: true,
      source: html,
    });
  });

  it('checks the object once the put succeeded (a DELETE after the answer, before the render, still fails it)', async () => {
    const reads = { gets: 0, sizes: 0 };
    const { store, finish } = heldPutStore(reads);
    const handoff = createPayloadHandoff();
    finish(true);
    const staged = await createStoredPayloads({ own: store, handoff }).stage([requested], Date.now() + 10_000);
    await staged.stored;
    await store.delete(storedRef(staged.requests[0]!).key);
    expect(await createStoredPayloads({ own: store, handoff }).resolve(staged.requests[0]!.data.source)).toMatchObject({
      ok: false,
      code: 'PAYLOAD_REMOVED',
    });
    expect(reads.sizes).toBe(1);
  });

  it('without a handoff (a worker in another process reads the object), stages only once the put is done', async () => {
    const { store, finish } = heldPutStore({ gets: 0, sizes: 0 });
    let staged = false;
    const staging = createStoredPayloads({ own: store })
      .stage([requested], Date.now() + 10_000)
      .then((s) => ((staged = true), s));
    await new Promise((r) => setTimeout(r, 20));
    expect(staged).toBe(false);
    finish(true);
    const { requests } = await staging;
    expect(await createStoredPayloads({ own: store }).resolve(requests[0]!.data.source)).toEqual({ ok: true, source: html });
  });
});

/** Copies in memory, as the Redis adapter keeps them (taken once); `failing` answers as Redis away does. */
function memoryCopies(opts: { failing?: boolean } = {}): PayloadCopies & { held: Map<string, Uint8Array> } {
  const held = new Map<string, Uint8Array>();
  const away = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
  return {
    held,
    put: async (key, bytes) => (opts.failing ? away() : (held.set(key, bytes), true)),
    take: async (key) => {
      if (opts.failing) return away();
      const bytes = held.get(key);
      held.delete(key);
      return bytes;
    },
    remove: async (keys) => keys.forEach((k) => held.delete(k)),
    close: async () => {},
  };
}

describe('stored payloads: the put beside the append when the worker takes a copy (distributed)', () => {
  const html = { kind: 'html', html: '<p>hi</p>' };
  const asyncRequest = { ...requested, data: { ...requested.data, mode: 'async' } } as RenderRequested;

  it('stages a sync request once its copy is written, while the put runs; its worker takes the copy', async () => {
    const reads = { gets: 0, sizes: 0 };
    const { store, finish } = heldPutStore(reads);
    const copies = memoryCopies();
    const staged = await createStoredPayloads({ own: store, copies }).stage([requested], Date.now() + 10_000);
    expect(copies.held.size).toBe(1);
    expect(await createStoredPayloads({ own: store, copies }).resolve(staged.requests[0]!.data.source)).toEqual({ ok: true, source: html });
    expect(reads.gets).toBe(0);
    finish(true);
    await staged.stored;
  });

  it('stages only once stored what has no copy: an async request, a copy Redis would not take or did not keep', async () => {
    const notKept: PayloadCopies = { ...memoryCopies(), put: async () => false }; // larger than the copies' limit
    for (const [request, copies] of [
      [asyncRequest, memoryCopies()],
      [requested, memoryCopies({ failing: true })],
      [requested, notKept],
    ] as const) {
      const { store, finish } = heldPutStore({ gets: 0, sizes: 0 });
      let staged = false;
      const staging = createStoredPayloads({ own: store, copies })
        .stage([request], Date.now() + 10_000)
        .then(() => (staged = true));
      await new Promise((r) => setTimeout(r, 20));
      expect(staged).toBe(false);
      finish(true);
      await staging;
    }
  });

  it('reads again, until the request’s acceptBy, an object its ingress may still be storing (its copy gone)', async () => {
    const reads = { gets: 0, sizes: 0 };
    const { store, finish } = heldPutStore(reads);
    const copies = memoryCopies();
    const staged = await createStoredPayloads({ own: store, copies }).stage([requested], Date.now() + 10_000);
    copies.held.clear(); // Redis lost it (a FLUSHALL) before the worker looked
    const sleeps: number[] = [];
    const worker = createStoredPayloads({
      own: store,
      copies,
      sleep: async (ms) => {
        sleeps.push(ms);
        finish(true);
        await staged.stored;
      },
    });
    expect(await worker.resolve(staged.requests[0]!.data.source, { storedBy: Date.now() + 5_000 })).toEqual({ ok: true, source: html });
    expect(reads.gets).toBe(2);
    expect(sleeps).toHaveLength(1);
  });

  it('fails PAYLOAD_REMOVED at once when the object is missing past the request’s acceptBy', async () => {
    const reads = { gets: 0, sizes: 0 };
    const { store } = heldPutStore(reads);
    const worker = createStoredPayloads({ own: store, sleep: () => Promise.reject(new Error('no wait expected')) });
    const source = storedSourceFor('tenant-a/01a20000-0000-7000-8000-000000000001.payload.json');
    expect(await worker.resolve(source, { storedBy: Date.now() - 60_000 })).toMatchObject({ ok: false, code: 'PAYLOAD_REMOVED' });
    expect(reads.gets).toBe(1);
  });
});

describe('stored payloads: copies for the render workers of other processes', () => {
  const html = { kind: 'html', html: '<p>hi</p>' };
  /** The ingress's side done: the request stored (object and copy); what the worker then finds. */
  async function storedWithCopies(opts: { failing?: boolean } = {}) {
    const reads = { gets: 0 };
    const own = memoryStore(reads);
    const copies = memoryCopies(opts);
    const [onLog] = await stored(createStoredPayloads({ own, copies }), [requested], Date.now() + 10_000);
    return { reads, own, copies, onLog, key: storedRef(onLog!).key };
  }

  it('copies each stored payload, and the worker takes the copy instead of reading the object back, once', async () => {
    const { reads, own, copies, onLog, key } = await storedWithCopies();
    expect(Buffer.from(copies.held.get(key)!).toString('utf8')).toBe(JSON.stringify(html));
    const worker = createStoredPayloads({ own, copies });
    expect(await worker.resolve(onLog!.data.source)).toEqual({ ok: true, source: html });
    expect(reads.gets).toBe(0);
    // Taken: a redelivery reads the object, with the same answer.
    expect(await worker.resolve(onLog!.data.source)).toEqual({ ok: true, source: html });
    expect(reads.gets).toBe(1);
  });

  it('copies no async request: a backlog of them would sit in Redis memory; their worker reads the object', async () => {
    const reads = { gets: 0 };
    const own = memoryStore(reads);
    const copies = memoryCopies();
    const queued = { ...requested, data: { ...requested.data, mode: 'async' } } as RenderRequested;
    const [onLog] = await stored(createStoredPayloads({ own, copies }), [queued], Date.now() + 10_000);
    expect(copies.held.size).toBe(0);
    expect(await createStoredPayloads({ own, copies }).resolve(onLog!.data.source)).toEqual({ ok: true, source: html });
    expect(reads.gets).toBe(1);
  });

  it('reads the object when the copy is not what the request names (another hash or size)', async () => {
    const { reads, own, copies, onLog, key } = await storedWithCopies();
    copies.held.set(key, new Uint8Array(Buffer.from(JSON.stringify({ kind: 'html', html: '<p>other</p>' }))));
    expect(await createStoredPayloads({ own, copies }).resolve(onLog!.data.source)).toEqual({ ok: true, source: html });
    expect(reads.gets).toBe(1);
  });

  it('accepts and renders while the copies cannot be written or read (Redis away): the object is the record', async () => {
    const { reads, own, copies, onLog } = await storedWithCopies({ failing: true });
    expect(await createStoredPayloads({ own, copies }).resolve(onLog!.data.source)).toEqual({ ok: true, source: html });
    expect(reads.gets).toBe(1);
  });

  it('fails PAYLOAD_REMOVED when the render was removed before it was rendered: the removal took the copy too', async () => {
    const { own, copies, onLog } = await storedWithCopies();
    const removal = createRenderRemoval({
      own,
      payloadCopies: copies,
      catalog: {} as Catalog,
      log: { append: async () => [] } as unknown as EventLog,
      topics: { completed: 'completed' } as TopicNames,
      event: ((type: string, ids: object, data: object) => ({ type, ...ids, data })) as unknown as EventFactory,
      clock: { now: () => new Date() },
      by: 'test',
    });
    await removal.remove('tenant-a', '01a20000-0000-7000-8000-000000000001');
    expect(copies.held.size).toBe(0);
    expect(await createStoredPayloads({ own, copies }).resolve(onLog!.data.source)).toMatchObject({ ok: false, code: 'PAYLOAD_REMOVED' });
  });
});
