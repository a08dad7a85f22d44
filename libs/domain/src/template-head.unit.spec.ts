import { describe, expect, it } from 'vitest';
import type { TemplateEvent } from '@pressroom/schemas';
import { evolveTemplateHead, templateVersionOf } from './template-head.ts';

const ids = { templateId: 'tpl_1', tenantId: 't1' };
const at = (n: number) => `2026-01-01T00:00:0${n}.000Z`;
const created: TemplateEvent = {
  eventId: 'e1',
  type: 'TemplateCreated',
  version: 1,
  occurredAt: at(1),
  ...ids,
  data: { templateVersion: 1, name: 'A', content: 'a' },
};
const revised: TemplateEvent = {
  eventId: 'e2',
  type: 'TemplateRevised',
  version: 1,
  occurredAt: at(2),
  ...ids,
  data: { templateVersion: 2, name: 'B', content: 'b' },
};
const deleted: TemplateEvent = {
  eventId: 'e3',
  type: 'TemplateDeleted',
  version: 1,
  occurredAt: at(3),
  ...ids,
  data: { templateVersion: 2 },
};

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
