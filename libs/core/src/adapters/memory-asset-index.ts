import { applyAssetEvent, type AssetEntry } from '@pressroom/domain';
import type { AssetIndex } from '../ports/assets.ts';

/** The embedded profile's asset index: in memory, rebuilt from the assets topic when first read after start. */
export function createMemoryAssetIndex(): AssetIndex {
  const tenants = new Map<string, Map<string, AssetEntry>>();
  let built = false;
  const entriesOf = (tenantId: string) => tenants.get(tenantId) ?? new Map<string, AssetEntry>();
  return {
    async apply(event) {
      const entries = entriesOf(event.tenantId);
      const next = applyAssetEvent(entries.get(event.data.name), event);
      if (!next) return;
      entries.set(event.data.name, next);
      tenants.set(event.tenantId, entries);
    },
    async get(tenantId, name) {
      const record = tenants.get(tenantId)?.get(name)?.record;
      return record ? { ...record } : undefined;
    },
    async list(tenantId) {
      return [...entriesOf(tenantId).values()]
        .flatMap((e) => (e.record ? [{ ...e.record }] : []))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    async clear() {
      tenants.clear();
      built = false;
    },
    isBuilt: async () => built,
    async markBuilt() {
      built = true;
    },
    async close() {},
  };
}
