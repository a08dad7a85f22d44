import type { RenderCacheEntry, RenderCacheIndex } from '../ports/render-cache.ts';

/** Entries kept by the in-memory index; the oldest is dropped first (a miss only costs a render). */
export const MEMORY_RENDER_CACHE_ENTRIES = 100_000;

/** The embedded profile's render cache index: a bounded map, rebuilt from the log at start. */
export function createMemoryRenderCache(maxEntries: number = MEMORY_RENDER_CACHE_ENTRIES): RenderCacheIndex {
  // A Map iterates in insertion order: deleting before setting keeps the newest last.
  const entries = new Map<string, RenderCacheEntry>();
  const id = (tenantId: string, cacheKey: string) => `${tenantId}\u0000${cacheKey}`;
  return {
    async get(tenantId, cacheKey) {
      return entries.get(id(tenantId, cacheKey));
    },
    async put(tenantId, cacheKey, entry) {
      const k = id(tenantId, cacheKey);
      entries.delete(k);
      entries.set(k, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    async close() {
      entries.clear();
    },
  };
}
