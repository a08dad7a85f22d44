import { describe, expect, it } from 'vitest';
import type { TemplateEvent } from '@pressroom/schemas';
import { PressroomError } from './errors.ts';
import { decideTemplate, emptyTemplateState, evolveTemplateState, type TemplateCommand } from './template-decider.ts';

const ids = { templateId: 'tpl_1', tenantId: 't1' };
const meta = (n: number) => ({ eventId: `e${n}`, occurredAt: `2026-01-01T00:00:0${n}.000Z` });
const content = (name: string) => ({ name, content: `<p>${name}</p>` });
const created: TemplateEvent = { ...meta(1), type: 'TemplateCreated', version: 1, ...ids, data: { templateVersion: 1, ...content('A') } };
const revised: TemplateEvent = { ...meta(2), type: 'TemplateRevised', version: 1, ...ids, data: { templateVersion: 2, ...content('B') } };
const deleted: TemplateEvent = { ...meta(3), type: 'TemplateDeleted', version: 1, ...ids, data: { templateVersion: 2 } };

/** given events → when command → then the decision (events + expected version) or an error. */
function given(...events: TemplateEvent[]) {
  const state = events.reduce(evolveTemplateState, emptyTemplateState);
  return { when: (command: TemplateCommand) => decideTemplate(command, state, meta(9)) };
}

describe('decideTemplate', () => {
  it('creates version 1 of a new template, expecting an empty stream', () => {
    expect(given().when({ type: 'CreateTemplate', ...ids, content: content('A') })).toEqual({
      expectedVersion: 0,
      events: [{ ...meta(9), type: 'TemplateCreated', version: 1, ...ids, data: { templateVersion: 1, ...content('A') } }],
    });
  });

  it('refuses to create a template whose stream exists (CONFLICT)', () => {
    const d = given(created).when({ type: 'CreateTemplate', ...ids, content: content('A') });
    expect(d).toBeInstanceOf(PressroomError);
    expect((d as PressroomError).code).toBe('CONFLICT');
  });

  it('revises to the next version, expecting the stream at the current one', () => {
    expect(given(created, revised).when({ type: 'ReviseTemplate', ...ids, content: content('C') })).toEqual({
      expectedVersion: 2,
      events: [{ ...meta(9), type: 'TemplateRevised', version: 1, ...ids, data: { templateVersion: 3, ...content('C') } }],
    });
  });

  it('deletes the latest version, expecting the stream at it', () => {
    expect(given(created, revised).when({ type: 'DeleteTemplate', ...ids })).toEqual({
      expectedVersion: 2,
      events: [{ ...meta(9), type: 'TemplateDeleted', version: 1, ...ids, data: { templateVersion: 2 } }],
    });
  });

  it('answers NOT_FOUND for a revision or deletion of a template never created, deleted, or of another tenant', () => {
    const cases: [TemplateEvent[], TemplateCommand][] = [
      [[], { type: 'ReviseTemplate', ...ids, content: content('X') }],
      [[created, revised, deleted], { type: 'ReviseTemplate', ...ids, content: content('X') }],
      [[created, revised, deleted], { type: 'DeleteTemplate', ...ids }],
      [[created], { type: 'ReviseTemplate', templateId: ids.templateId, tenantId: 'other', content: content('X') }],
    ];
    for (const [events, command] of cases) {
      const d = given(...events).when(command);
      expect(d).toBeInstanceOf(PressroomError);
      expect((d as PressroomError).code).toBe('NOT_FOUND');
    }
  });

  it('refuses (CONFLICT) a revision or deletion of a version that is no longer the latest (If-Match)', () => {
    for (const command of [
      { type: 'ReviseTemplate', ...ids, content: content('C'), ifVersion: 1 },
      { type: 'DeleteTemplate', ...ids, ifVersion: 1 },
    ] as TemplateCommand[]) {
      const d = given(created, revised).when(command);
      expect(d).toBeInstanceOf(PressroomError);
      expect((d as PressroomError).code).toBe('CONFLICT');
    }
    expect(given(created, revised).when({ type: 'ReviseTemplate', ...ids, content: content('C'), ifVersion: 2 })).toMatchObject({
      expectedVersion: 2,
    });
  });

  it('two revisions decided on the same state expect the same version: only one append can pass', () => {
    const state = [created].reduce(evolveTemplateState, emptyTemplateState);
    const a = decideTemplate({ type: 'ReviseTemplate', ...ids, content: content('A2') }, state, meta(4));
    const b = decideTemplate({ type: 'ReviseTemplate', ...ids, content: content('B2') }, state, meta(5));
    expect([a, b].map((d) => (d as { expectedVersion: number }).expectedVersion)).toEqual([1, 1]);
  });
});
