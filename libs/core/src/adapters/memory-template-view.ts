import { evolveTemplateHead, templateVersionOf, type TemplateHead, type TemplateVersionRecord } from '@pressroom/domain';
import type { TemplateView } from '../ports/template-view.ts';

/**
 * The embedded profile's template view: in memory, rebuilt from the log at start (the
 * template projector does it before the ingress serves).
 */
/** What a snapshot of the template view holds: every head and every version, one item each. */
export type TemplateViewItem = { head: TemplateHead } | { version: TemplateVersionRecord };

export interface MemoryTemplateView extends TemplateView {
  exportState(): TemplateViewItem[];
  importState(items: TemplateViewItem[]): void;
}

export function createMemoryTemplateView(): MemoryTemplateView {
  const heads = new Map<string, TemplateHead>();
  const versions = new Map<string, Map<number, TemplateVersionRecord>>();
  const keyOf = (tenantId: string, templateId: string) => JSON.stringify([tenantId, templateId]);
  const live = (tenantId: string, templateId: string) => {
    const head = heads.get(keyOf(tenantId, templateId));
    return head && !head.deleted ? head : undefined;
  };

  let built = false;
  return {
    async apply(event) {
      const key = keyOf(event.tenantId, event.templateId);
      const record = templateVersionOf(event);
      if (record) {
        let byVersion = versions.get(key);
        if (!byVersion) versions.set(key, (byVersion = new Map<number, TemplateVersionRecord>()));
        if (!byVersion.has(record.version)) byVersion.set(record.version, record);
      }
      const next = evolveTemplateHead(heads.get(key), event);
      if (next) heads.set(key, next);
    },
    async head(tenantId, templateId) {
      return structuredClone(live(tenantId, templateId));
    },
    async version(tenantId, templateId, version) {
      const head = live(tenantId, templateId);
      if (!head) return undefined;
      return structuredClone(versions.get(keyOf(tenantId, templateId))?.get(version ?? head.latestVersion));
    },
    async versions(tenantId, templateId) {
      if (!live(tenantId, templateId)) return [];
      const all = [...(versions.get(keyOf(tenantId, templateId))?.values() ?? [])];
      return structuredClone(all.sort((a, b) => a.version - b.version));
    },
    async list(tenantId) {
      const all = [...heads.values()].filter((h) => h.tenantId === tenantId && !h.deleted);
      return structuredClone(all.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.templateId.localeCompare(b.templateId)));
    },
    exportState: () => [
      ...[...heads.values()].map((head) => ({ head })),
      ...[...versions.values()].flatMap((byVersion) => [...byVersion.values()].map((version) => ({ version }))),
    ],
    importState(items) {
      heads.clear();
      versions.clear();
      for (const item of items) {
        if ('head' in item) {
          heads.set(keyOf(item.head.tenantId, item.head.templateId), item.head);
          continue;
        }
        const record = item.version;
        const key = keyOf(record.tenantId, record.templateId);
        let byVersion = versions.get(key);
        if (!byVersion) versions.set(key, (byVersion = new Map<number, TemplateVersionRecord>()));
        byVersion.set(record.version, record);
      }
    },
    isBuilt: async () => built,
    async markBuilt() {
      built = true;
    },
    async clear() {
      built = false;
      heads.clear();
      versions.clear();
    },
    async ping() {},
    async close() {},
  };
}
