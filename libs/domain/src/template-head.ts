import type { TemplateEvent, TemplateVersionContent } from '@pressroom/schemas';
import type { Projection } from './projection.ts';

/** One immutable version of a template, as the view keeps it. */
export interface TemplateVersionRecord extends TemplateVersionContent {
  tenantId: string;
  templateId: string;
  version: number;
  /** When this version was written (its event's occurredAt). */
  createdAt: string;
}

/** What the view knows of a template as a whole. A deleted template keeps a tombstone. */
export interface TemplateHead {
  tenantId: string;
  templateId: string;
  latestVersion: number;
  name: string;
  createdAt: string;
  updatedAt: string;
  deleted?: boolean;
}

/**
 * Evolves a template's head with one event. Pure, idempotent and forward-only: an event for a
 * version the head has already passed changes nothing, a deletion is final, so replaying the
 * log (or applying an event twice, from the ingress and from the projector) gives one result.
 */
export function evolveTemplateHead(current: TemplateHead | undefined, event: TemplateEvent): TemplateHead | undefined {
  if (current?.deleted) return current;
  switch (event.type) {
    case 'TemplateCreated':
    case 'TemplateRevised': {
      if (current && current.latestVersion >= event.data.templateVersion) return current;
      return {
        tenantId: event.tenantId,
        templateId: event.templateId,
        latestVersion: event.data.templateVersion,
        name: event.data.name,
        createdAt: current?.createdAt ?? event.occurredAt,
        updatedAt: event.occurredAt,
      };
    }
    case 'TemplateDeleted':
      return {
        tenantId: event.tenantId,
        templateId: event.templateId,
        latestVersion: Math.max(current?.latestVersion ?? 0, event.data.templateVersion),
        name: current?.name ?? '',
        createdAt: current?.createdAt ?? event.occurredAt,
        updatedAt: event.occurredAt,
        deleted: true,
      };
  }
}

/** The immutable version record an event writes, or undefined for a deletion. */
export function templateVersionOf(event: TemplateEvent): TemplateVersionRecord | undefined {
  if (event.type === 'TemplateDeleted') return undefined;
  const { templateVersion, ...content } = event.data;
  return { tenantId: event.tenantId, templateId: event.templateId, version: templateVersion, createdAt: event.occurredAt, ...content };
}

const isTemplateEvent = (event: unknown): event is TemplateEvent => typeof event === 'object' && event !== null && 'templateId' in event;

/** Template heads as a projection: one per template, listed by tenant, folded by `evolveTemplateHead`. */
export const templateHeadProjection: Projection<TemplateEvent, TemplateHead> = {
  canHandle: isTemplateEvent,
  keyOf: (event) => ({ group: event.tenantId, id: event.templateId }),
  evolve: evolveTemplateHead,
};

/** Template versions as a projection: one immutable record per version, listed by template; the first write stays. */
export const templateVersionProjection: Projection<TemplateEvent, TemplateVersionRecord> = {
  canHandle: (event): event is TemplateEvent => isTemplateEvent(event) && event.type !== 'TemplateDeleted',
  keyOf: (event) => ({ group: templateVersionsGroup(event.tenantId, event.templateId), id: String(templateVersionOf(event)?.version) }),
  evolve: (current, event) => current ?? templateVersionOf(event),
};

/** The group of a template's versions (`tenantId:templateId`, the Redis hash the view always used). */
export const templateVersionsGroup = (tenantId: string, templateId: string) => `${tenantId}:${templateId}`;
