import type { BuiltMarker } from './built-marker.ts';
import type { TemplateEvent } from '@pressroom/schemas';
import type { TemplateHead, TemplateVersionRecord } from '@pressroom/domain';
import type { DocumentCollectionSpec } from './document-store.ts';

/**
 * Where both template view adapters keep their documents, all under `templates:` (what a
 * rebuild clears): heads grouped by tenant (`templateHeadProjection`), versions grouped by
 * template (`templateVersionProjection`), and the "built" marker.
 */
export const TEMPLATE_DOCUMENTS = 'templates:';
export const TEMPLATE_HEADS = { name: 'templates:heads:' } satisfies DocumentCollectionSpec;
export const TEMPLATE_VERSIONS = { name: 'templates:versions:' } satisfies DocumentCollectionSpec;
export const TEMPLATES_BUILT_MARKER = 'templates:built';

/**
 * The template view: every version of every template, immutable, plus each template's head
 * (latest version, name, times, deleted or not), derived only from template events (see
 * `evolveTemplateHead` in @pressroom/domain), so it can be wiped and rebuilt from the log.
 *
 * Adapters guarantee:
 * - `apply` is idempotent and forward-only, safe to call concurrently from several processes
 *   (the ingress applies the event it has just appended; the projector applies everything);
 * - reads are scoped by tenant: another tenant's template is simply absent;
 * - a deleted template is absent from `get`, `list`, `version` and `versions`.
 */
export interface TemplateView extends BuiltMarker {
  apply(event: TemplateEvent): Promise<void>;
  /** The head of a live template. */
  head(tenantId: string, templateId: string): Promise<TemplateHead | undefined>;
  /** One version of a live template; `version` undefined means the latest. */
  version(tenantId: string, templateId: string, version?: number): Promise<TemplateVersionRecord | undefined>;
  /** Every version of a live template, oldest first. */
  versions(tenantId: string, templateId: string): Promise<TemplateVersionRecord[]>;
  /** Heads of the tenant's live templates, oldest first. */
  list(tenantId: string): Promise<TemplateHead[]>;
  /** Removes everything (before a rebuild from the log). */
  clear(): Promise<void>;
  /**
   * Whether a full rebuild from the log completed since the view's storage last lost its data
   * (`clear` and a Redis FLUSHALL or restart without persistence forget it): readers that find
   * nothing rebuild first when it is false (see selfRebuildingViews).
   */
  isBuilt(): Promise<boolean>;
  markBuilt(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
