import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AssetStore, selfRebuildingAssetIndex, uuidV7Ids, type AssetIndex, type AssetRecord, type ObjectStore } from '@pressroom/core';
import type { AssetEvent } from '@pressroom/schemas';
import { spacesPerTest, withFileLog } from './contract-support.ts';

/**
 * One isolated asset index namespace owned by one test. Every index `open()` returns shares
 * the same data (Redis: a new instance, as another process would have; memory: the same one).
 */
export interface AssetIndexSpace {
  open(): Promise<AssetIndex>;
  dispose(): Promise<void>;
}

const at = (s: number) => `2030-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const sha = (c: string) => c.repeat(64);

/** An asset as the index holds it (and as the older layouts stored it), for legacy-import givens. */
export function assetRecord(tenantId: string, name: string): AssetRecord {
  return { tenantId, name, contentType: 'image/png', bytes: 3, sha256: sha('a'), createdAt: '2026-01-01T00:00:00.000Z' };
}

function uploaded(tenantId: string, name: string, s: number, digest = sha('a')): AssetEvent {
  return {
    eventId: randomUUID(),
    type: 'AssetUploaded',
    version: 1,
    occurredAt: at(s),
    tenantId,
    data: { name, contentType: 'image/png', bytes: 3, sha256: digest },
  };
}

function deleted(tenantId: string, name: string, s: number): AssetEvent {
  return { eventId: randomUUID(), type: 'AssetDeleted', version: 1, occurredAt: at(s), tenantId, data: { name } };
}

/** Object storage for the rebuild test: a Map (the index is under test, not the bytes). */
function mapObjects(): ObjectStore {
  const m = new Map<string, { bytes: Uint8Array; contentType: string }>();
  return {
    put: async (key, bytes, contentType) => void m.set(key, { bytes, contentType }),
    get: async (key) => m.get(key),
    delete: async (key) => void m.delete(key),
  } as ObjectStore;
}

/** What every AssetIndex adapter must do (see the port's JSDoc). */
export function assetIndexContract(name: string, options: { createSpace(): Promise<AssetIndexSpace> }): void {
  describe(`AssetIndex contract: ${name}`, () => {
    const open = spacesPerTest(() => options.createSpace());

    it('indexes uploads per tenant, replaces a name on a newer upload, and forgets it on deletion', async () => {
      const index = await (await open()).open();
      const [a, b] = [`t-${randomUUID()}`, `t-${randomUUID()}`];
      await index.apply(uploaded(a, 'logo.png', 1));
      await index.apply(uploaded(a, 'font.woff2', 2));
      await index.apply(uploaded(b, 'logo.png', 3));
      await index.apply(uploaded(a, 'logo.png', 4, sha('b')));
      expect(await index.get(a, 'logo.png')).toEqual({
        tenantId: a,
        name: 'logo.png',
        contentType: 'image/png',
        bytes: 3,
        sha256: sha('b'),
        createdAt: at(4),
      });
      expect((await index.list(a)).map((r) => r.name)).toEqual(['font.woff2', 'logo.png']);
      await index.apply(deleted(a, 'logo.png', 5));
      expect(await index.get(a, 'logo.png')).toBeUndefined();
      expect((await index.list(a)).map((r) => r.name)).toEqual(['font.woff2']);
      // Another tenant's asset of the same name is its own
      expect((await index.get(b, 'logo.png'))?.tenantId).toBe(b);
      expect(await index.get(`t-${randomUUID()}`, 'logo.png')).toBeUndefined();
    });

    it('gives the same index whatever the order events arrive in, from several processes, and for an event applied twice', async () => {
      const space = await open();
      const [one, two] = [await space.open(), await space.open()];
      const tenant = `t-${randomUUID()}`;
      const first = uploaded(tenant, 'logo.png', 1);
      const gone = deleted(tenant, 'logo.png', 2);
      const again = uploaded(tenant, 'logo.png', 3, sha('c'));
      // A deletion applied before the upload it deletes: the upload does not bring the asset back
      await one.apply(gone);
      await two.apply(first);
      expect(await one.get(tenant, 'logo.png')).toBeUndefined();
      await Promise.all([one.apply(again), two.apply(again), two.apply(first)]);
      expect((await one.get(tenant, 'logo.png'))?.sha256).toBe(sha('c'));
      await one.apply(gone);
      expect((await two.get(tenant, 'logo.png'))?.sha256).toBe(sha('c'));
    });

    it('forgets everything on clear, its built marker too', async () => {
      const index = await (await open()).open();
      const tenant = `t-${randomUUID()}`;
      await index.apply(uploaded(tenant, 'logo.png', 1));
      expect(await index.isBuilt()).toBe(false);
      await index.markBuilt();
      expect(await index.isBuilt()).toBe(true);
      await index.clear();
      expect(await index.get(tenant, 'logo.png')).toBeUndefined();
      expect(await index.list(tenant)).toEqual([]);
      expect(await index.isBuilt()).toBe(false);
    });

    it('wrapped to rebuild itself: assets uploaded and deleted through the store come back from the log after the index lost its data', async () => {
      const space = await open();
      await withFileLog('assets', async ({ log, topics }) => {
        // Time-ordered ids, as in the service: events of one writer in the same millisecond keep
        // their order (random ids made the deletion lose to its upload now and then).
        const deps = { log, topics, clock: { now: () => new Date() }, ids: uuidV7Ids, objects: mapObjects() };
        const store = new AssetStore({ ...deps, index: selfRebuildingAssetIndex(await space.open(), { log, topics }) });
        const tenant = `t-${randomUUID()}`;
        const png = new Uint8Array([0x89, 0x50, 0x4e]);
        // Given assets uploaded, one replaced and one deleted
        await store.put(tenant, 'logo.png', 'image/png', png);
        await store.put(tenant, 'logo.png', 'image/png', new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
        await store.put(tenant, 'old.png', 'image/png', png);
        expect(await store.delete(tenant, 'old.png')).toBe(true);
        expect(await store.delete(tenant, 'old.png')).toBe(false);
        // When the index loses everything
        await (await space.open()).clear();
        // Then another process's store reads them as they were, rebuilt from the log, bytes and all
        const other = new AssetStore({ ...deps, index: selfRebuildingAssetIndex(await space.open(), { log, topics }) });
        expect(await other.get(tenant, 'logo.png')).toMatchObject({ name: 'logo.png', bytes: 4 });
        expect((await other.read(tenant, 'logo.png'))?.bytes).toHaveLength(4);
        expect(await other.get(tenant, 'old.png')).toBeUndefined();
        expect((await other.list(tenant)).map((r) => r.name)).toEqual(['logo.png']);
      });
    });
  });
}
