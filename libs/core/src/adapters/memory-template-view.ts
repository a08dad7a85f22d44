import type { TemplateHead, TemplateVersionRecord } from '@pressroom/domain';
import { TEMPLATE_DOCUMENTS, TEMPLATE_HEADS, TEMPLATE_VERSIONS, type TemplateView } from '../ports/template-view.ts';
import { templateViewOn } from '../projections/template-documents.ts';
import { createMemoryDocumentStore, type MemoryDocumentStore } from './memory-document-store.ts';
import { templateVersionsGroup } from '@pressroom/domain';

/** What a snapshot of the template view holds: every head and every version, one item each. */
export type TemplateViewItem = { head: TemplateHead } | { version: TemplateVersionRecord };

export interface MemoryTemplateView extends TemplateView {
  exportState(): TemplateViewItem[];
  importState(items: TemplateViewItem[]): void;
}

/**
 * The embedded profile's template view: the template projections' documents in a memory
 * document store (its own unless given one), rebuilt from the log at start (the template
 * projector does it before the ingress serves).
 */
export function createMemoryTemplateView(store: MemoryDocumentStore = createMemoryDocumentStore()): MemoryTemplateView {
  const heads = store.collection<TemplateHead>(TEMPLATE_HEADS);
  const versions = store.collection<TemplateVersionRecord>(TEMPLATE_VERSIONS);
  return {
    ...templateViewOn(store, { copies: true }),
    exportState: () => [...heads.all().map((head) => ({ head })), ...versions.all().map((version) => ({ version }))],
    importState(items) {
      void store.clear(TEMPLATE_DOCUMENTS); // synchronous in memory
      for (const item of items) {
        if ('head' in item) heads.put({ group: item.head.tenantId, id: item.head.templateId }, item.head);
        else
          versions.put(
            { group: templateVersionsGroup(item.version.tenantId, item.version.templateId), id: String(item.version.version) },
            item.version,
          );
      }
    },
  };
}
