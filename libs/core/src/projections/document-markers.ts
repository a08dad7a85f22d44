import type { BuiltMarker } from '../ports/built-marker.ts';
import type { DocumentStore } from '../ports/document-store.ts';

/**
 * A view's built marker kept in its document store under `marker`; with the store's replay notes
 * when it has them (a store that can lose its data: see BuiltMarker.startBuild).
 */
export function documentBuiltMarker(store: DocumentStore, marker: string): BuiltMarker {
  return {
    isBuilt: () => store.isMarked(marker),
    markBuilt: () => store.mark(marker),
    ...(store.startMarking && store.markIfNoted
      ? {
          startBuild: () => store.startMarking!(marker),
          markBuiltAfter: (build: string) => store.markIfNoted!(marker, build),
        }
      : {}),
  };
}
