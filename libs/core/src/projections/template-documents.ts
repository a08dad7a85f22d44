import {
  templateHeadProjection,
  templateVersionProjection,
  templateVersionsGroup,
  type TemplateHead,
  type TemplateVersionRecord,
} from '@pressroom/domain';
import type { TemplateEvent } from '@pressroom/schemas';
import type { DocumentStore } from '../ports/document-store.ts';
import {
  TEMPLATE_DOCUMENTS,
  TEMPLATE_HEADS,
  TEMPLATE_VERSIONS,
  TEMPLATES_BUILT_MARKER,
  type TemplateView,
} from '../ports/template-view.ts';
import { project } from './project.ts';
import { documentBuiltMarker } from './document-markers.ts';

/**
 * The template view over any document store: `apply` runs the two template projections (the
 * version first, then the head), the reads are the view's query side. Both adapters are this
 * (memory: `createMemoryTemplateView`; Redis: `createRedisTemplateView`); `copies` makes reads
 * hand out copies, for a store that hands out its own documents (memory).
 */
export function templateViewOn(store: DocumentStore, opts: { copies: boolean }): TemplateView {
  const heads = store.collection<TemplateHead>(TEMPLATE_HEADS);
  const versions = store.collection<TemplateVersionRecord>(TEMPLATE_VERSIONS);
  const out = <T>(value: T): T => (opts.copies ? structuredClone(value) : value);
  const liveHead = async (tenantId: string, templateId: string) => {
    const head = (await heads.get({ group: tenantId, id: templateId }))?.doc;
    return head && !head.deleted ? head : undefined;
  };

  return {
    async apply(event: TemplateEvent) {
      await project(versions, templateVersionProjection, event);
      await project(heads, templateHeadProjection, event);
    },
    async head(tenantId, templateId) {
      return out(await liveHead(tenantId, templateId));
    },
    async version(tenantId, templateId, version) {
      const head = await liveHead(tenantId, templateId);
      if (!head) return undefined;
      return out(
        (await versions.get({ group: templateVersionsGroup(tenantId, templateId), id: String(version ?? head.latestVersion) }))?.doc,
      );
    },
    async versions(tenantId, templateId) {
      if (!(await liveHead(tenantId, templateId))) return [];
      const all = await versions.list(templateVersionsGroup(tenantId, templateId));
      return out(all.sort((a, b) => a.version - b.version));
    },
    async list(tenantId) {
      const all = (await heads.list(tenantId)).filter((h) => !h.deleted);
      return out(all.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.templateId.localeCompare(b.templateId)));
    },
    ...documentBuiltMarker(store, TEMPLATES_BUILT_MARKER),
    clear: () => store.clear(TEMPLATE_DOCUMENTS),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
