import { describe, expect, it } from 'vitest';
import type { RenderRequested } from '@pressroom/schemas';
import { createPayloadHandoff, createStoredPayloads } from './stored-payloads.ts';
import type { ObjectStore } from './ports/object-store.ts';

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
    const refused = await payloads.store([requested], Date.now() + 10_000).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: true });
    expect(String((refused as Error).message)).toMatch(/nothing was accepted/);
    expect(calls.puts).toBe(3);
  });

  it('gives up at the request deadline instead of spending the retries past it', async () => {
    const calls = { puts: 0 };
    const payloads = createStoredPayloads({ own: refusingStore(calls), sleep: async () => {} });
    await expect(payloads.store([requested], Date.now() + 50)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
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
    signedGetUrl: never,
    ping: never,
  };
}

describe('stored payloads: handed from the ingress to the worker of the same process', () => {
  const storedRef = (r: RenderRequested) => (r.data.source as Extract<RenderRequested['data']['source'], { kind: 'stored' }>).payload;

  it('renders the source the ingress stored without reading it back, once', async () => {
    const reads = { gets: 0 };
    const own = memoryStore(reads);
    const handoff = createPayloadHandoff();
    const [onLog] = await createStoredPayloads({ own, handoff }).store([requested], Date.now() + 10_000);
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
    const [onLog] = await createStoredPayloads({ own, handoff }).store([requested], Date.now() + 10_000);
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
    expect(handoff.take({ key: 'b', sha256: 'h2', bytes: 6 })).toBe(source);
  });
});
