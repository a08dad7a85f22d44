import { describe, expect, it } from 'vitest';
import type { TemplateEvent } from '@pressroom/schemas';
import { statusProjection } from './status.ts';
import { templateHeadProjection, templateVersionProjection } from './template-head.ts';
import { syncRenderEvents } from './test-support/render-events.ts';

const { requested, failed } = syncRenderEvents('r1');
const created: TemplateEvent = {
  tenantId: 't1',
  templateId: 'tpl_1',
  eventId: 'e4',
  type: 'TemplateCreated',
  version: 1,
  occurredAt: '2026-01-01T00:00:01.000Z',
  data: { templateVersion: 1, name: 'Invoice', content: '<p>1</p>' },
};
const deleted: TemplateEvent = { ...created, eventId: 'e5', type: 'TemplateDeleted', data: { templateVersion: 1 } };

describe('statusProjection', () => {
  it('keys a render by its requestId, handles only events of a request, and announces only the move to terminal', () => {
    expect(statusProjection.canHandle(requested)).toBe(true);
    expect(statusProjection.canHandle(created)).toBe(false);
    expect(statusProjection.keyOf(requested)).toBe('r1');
    const ongoing = statusProjection.evolve(undefined, requested)!;
    const done = statusProjection.evolve(ongoing, failed)!;
    expect(statusProjection.announces?.(undefined, ongoing)).toBe(false);
    expect(statusProjection.announces?.(ongoing, done)).toBe(true);
    // A redelivered outcome changes nothing (the same object), so nothing is written or announced twice.
    expect(statusProjection.evolve(done, failed)).toBe(done);
  });
});

describe('template projections', () => {
  it('group heads by tenant and versions by template; the first version written stays', () => {
    expect(templateHeadProjection.keyOf(created)).toEqual({ group: 't1', id: 'tpl_1' });
    expect(templateVersionProjection.keyOf(created)).toEqual({ group: 't1:tpl_1', id: '1' });
    expect(templateVersionProjection.canHandle(deleted)).toBe(false);
    expect(templateHeadProjection.canHandle(deleted)).toBe(true);
    expect(templateHeadProjection.canHandle(requested)).toBe(false);
    const first = templateVersionProjection.evolve(undefined, created)!;
    expect(first).toMatchObject({ tenantId: 't1', templateId: 'tpl_1', version: 1, content: '<p>1</p>' });
    expect(templateVersionProjection.evolve(first, { ...created, data: { ...created.data, content: '<p>other</p>' } })).toBe(first);
  });
});
