import { createHash } from 'node:crypto';
import type { AssetContentType, AssetDeleted, AssetEvent, AssetUploaded } from '@pressroom/schemas';
import { assetRecordOf } from '@pressroom/domain';
import type { AssetIndex, AssetRecord } from './ports/assets.ts';
import type { Clock, Ids } from './ports/clock.ts';
import type { EventLog, TopicNames } from './ports/event-log.ts';
import type { ObjectStore } from './ports/object-store.ts';
import type { AssetSource } from './ports/renderer.ts';

/** Where an asset's bytes live in our own store: beside the tenant's renders, never among them. */
export function assetObjectKey(tenantId: string, name: string): string {
  return `${tenantId}/assets/${name}`;
}

export interface AssetStoreDeps {
  index: AssetIndex;
  objects: ObjectStore;
  log: EventLog;
  topics: TopicNames;
  clock: Clock;
  ids: Ids;
}

/**
 * The tenant's uploaded fonts and images: bytes in the profile's own ObjectStore under
 * `<tenantId>/assets/<name>`, the facts on the log (AssetUploaded, AssetDeleted on the assets
 * topic), and an index that is a view of them. The bytes are written before the upload event
 * and removed after the deletion event, so the log never names an asset whose bytes are
 * missing; the writer applies its own event to the index (to read its own write), and the
 * index rebuilds itself from the log when it lost its data.
 */
export class AssetStore {
  readonly #deps: AssetStoreDeps;

  constructor(deps: AssetStoreDeps) {
    this.#deps = deps;
  }

  async put(tenantId: string, name: string, contentType: AssetContentType, bytes: Uint8Array): Promise<AssetRecord> {
    await this.#deps.objects.put(assetObjectKey(tenantId, name), bytes, contentType);
    const event = this.#event<AssetUploaded>(tenantId, {
      type: 'AssetUploaded',
      data: { name, contentType, bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') },
    });
    await this.#record(event);
    return assetRecordOf(event);
  }

  get(tenantId: string, name: string): Promise<AssetRecord | undefined> {
    return this.#deps.index.get(tenantId, name);
  }

  list(tenantId: string): Promise<AssetRecord[]> {
    return this.#deps.index.list(tenantId);
  }

  /** The bytes of an indexed asset, or undefined for a name the tenant does not have. */
  async read(tenantId: string, name: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined> {
    const record = await this.#deps.index.get(tenantId, name);
    if (!record) return undefined;
    const object = await this.#deps.objects.get(assetObjectKey(tenantId, name));
    return object ? { bytes: object.bytes, contentType: record.contentType } : undefined;
  }

  async delete(tenantId: string, name: string): Promise<boolean> {
    if (!(await this.#deps.index.get(tenantId, name))) return false;
    await this.#record(this.#event<AssetDeleted>(tenantId, { type: 'AssetDeleted', data: { name } }));
    await this.#deps.objects.delete(assetObjectKey(tenantId, name));
    return true;
  }

  /** What a render of this tenant sees at ASSET_ORIGIN: only this tenant's assets. */
  sourceFor(tenantId: string): AssetSource {
    return { get: (name) => this.read(tenantId, name) };
  }

  #event<E extends AssetEvent>(tenantId: string, body: Pick<E, 'type' | 'data'>): E {
    return {
      eventId: this.#deps.ids.next(),
      version: 1,
      occurredAt: this.#deps.clock.now().toISOString(),
      tenantId,
      ...body,
    } as E;
  }

  /** On the log first (the record), then into the index. */
  async #record(event: AssetEvent): Promise<void> {
    await this.#deps.log.append(this.#deps.topics.assets, [event]);
    await this.#deps.index.apply(event);
  }
}
