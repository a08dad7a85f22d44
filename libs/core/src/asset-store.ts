import { createHash } from 'node:crypto';
import type { AssetIndex, AssetRecord } from './ports/assets.ts';
import type { Clock } from './ports/clock.ts';
import type { ObjectStore } from './ports/object-store.ts';
import type { AssetSource } from './ports/renderer.ts';

/** Where an asset's bytes live in our own store: beside the tenant's renders, never among them. */
export function assetObjectKey(tenantId: string, name: string): string {
  return `${tenantId}/assets/${name}`;
}

/**
 * The tenant's uploaded fonts and images: bytes in the profile's own ObjectStore under
 * `<tenantId>/assets/<name>`, described by a small index. The bytes are written before the
 * index entry and removed after it, so an entry never points at a missing object.
 */
export class AssetStore {
  readonly #index: AssetIndex;
  readonly #objects: ObjectStore;
  readonly #clock: Clock;

  constructor(deps: { index: AssetIndex; objects: ObjectStore; clock: Clock }) {
    this.#index = deps.index;
    this.#objects = deps.objects;
    this.#clock = deps.clock;
  }

  async put(tenantId: string, name: string, contentType: string, bytes: Uint8Array): Promise<AssetRecord> {
    await this.#objects.put(assetObjectKey(tenantId, name), bytes, contentType);
    const record: AssetRecord = {
      tenantId,
      name,
      contentType,
      bytes: bytes.byteLength,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      createdAt: this.#clock.now().toISOString(),
    };
    await this.#index.put(record);
    return record;
  }

  get(tenantId: string, name: string): Promise<AssetRecord | undefined> {
    return this.#index.get(tenantId, name);
  }

  list(tenantId: string): Promise<AssetRecord[]> {
    return this.#index.list(tenantId);
  }

  /** The bytes of an indexed asset, or undefined for a name the tenant does not have. */
  async read(tenantId: string, name: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined> {
    const record = await this.#index.get(tenantId, name);
    if (!record) return undefined;
    const object = await this.#objects.get(assetObjectKey(tenantId, name));
    return object ? { bytes: object.bytes, contentType: record.contentType } : undefined;
  }

  async delete(tenantId: string, name: string): Promise<boolean> {
    const deleted = await this.#index.delete(tenantId, name);
    if (deleted) await this.#objects.delete(assetObjectKey(tenantId, name));
    return deleted;
  }

  /** What a render of this tenant sees at ASSET_ORIGIN: only this tenant's assets. */
  sourceFor(tenantId: string): AssetSource {
    return { get: (name) => this.read(tenantId, name) };
  }
}
