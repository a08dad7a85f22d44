import type { Catalog } from '../ports/catalog.ts';
import { catalogOn } from '../projections/catalog-documents.ts';
import { createMemoryDocumentStore, type MemoryDocumentStore } from './memory-document-store.ts';

/**
 * The embedded profile's catalog view: the catalog projections' documents in a memory document
 * store (its own unless given one), rebuilt from the catalog topic at start.
 */
export function createMemoryCatalog(documents: MemoryDocumentStore = createMemoryDocumentStore()): Catalog {
  return catalogOn(documents, { copies: true });
}
