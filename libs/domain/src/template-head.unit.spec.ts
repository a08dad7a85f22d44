import { describe, expect, it } from 'vitest';
import type { TemplateEvent } from '@pressroom/schemas';
import { evolveTemplateHead, templateVersionOf } from './template-head.ts';

const ids = { templateId: 'tpl_1', tenantId: 't1' };
const at = (n: number) => `2026-01-01T00:00:0${n}.000Z`;
/** The envelope of the template's n-th event (id e<n>, written at second n). */
const head = (n: number) => ({ eventId: `e${n}`, version: 1 as const, occurredAt: at(n), ...ids });
const created: TemplateEvent = { ...head(1), type: 'TemplateCreated', data: { templateVersion: 1, name: 'A', content: 'a' } };
const revised: TemplateEvent = { ...head(2), type: 'TemplateRevised', data: { templateVersion: 2, name: 'B', content: 'b' } };
const deleted: TemplateEvent = { ...head(3), type: 'TemplateDeleted', data: { templateVersion: 2 } };

describe('evolveTemplateHead', () => {
  it('moves forward through versions and keeps the creation time', () => {
    const h = evolveTemplateHead(evolveTemplateHead(undefined, created), revised);
    expect(h).toEqual({ ...ids, latestVersion: 2, name: 'B', createdAt: at(1), updatedAt: at(2) });
  });

  it('is idempotent and ignores a version it has passed', () => {
    const h = evolveTemplateHead(evolveTemplateHead(undefined, created), revised);
    expect(evolveTemplateHead(h, revised)).toBe(h);
    expect(evolveTemplateHead(h, created)).toBe(h);
  });

  it('makes a deletion final', () => {
    const gone = evolveTemplateHead(evolveTemplateHead(evolveTemplateHead(undefined, created), revised), deleted);
    expect(gone?.deleted).toBe(true);
    expect(evolveTemplateHead(gone, { ...revised, data: { ...revised.data, templateVersion: 3 } })).toBe(gone);
  });

  it('records each version immutably, deletion none', () => {
    expect(templateVersionOf(revised)).toEqual({ ...ids, version: 2, createdAt: at(2), name: 'B', content: 'b' });
    expect(templateVersionOf(deleted)).toBeUndefined();
  });
});
