/** One file the render cache can copy: the render that produced it and where it is (our own storage). */
export interface RenderCacheEntry {
  requestId: string;
  /** Object key in our own storage (always under `<tenantId>/`). */
  key: string;
  contentType: string;
  bytes: number;
  pages?: number;
}

/**
 * The render cache index: content key (renderCacheKey) → the latest file rendered with it. A
 * projection of RenderSucceeded.cache on the completed topic (startRenderCacheProjector), in
 * memory in the embedded profile and in Redis in the distributed one.
 *
 * Adapters guarantee: reads are scoped by tenant (the key already includes the tenant; the
 * index keeps them apart as well); `put` is last-writer-wins and safe from several processes.
 * An entry may outlive its file (DELETE, retention): the worker then copies nothing, renders,
 * and its outcome replaces the entry. Losing the index costs renders, never a wrong file.
 */
export interface RenderCacheIndex {
  get(tenantId: string, cacheKey: string): Promise<RenderCacheEntry | undefined>;
  put(tenantId: string, cacheKey: string, entry: RenderCacheEntry): Promise<void>;
  close(): Promise<void>;
}
