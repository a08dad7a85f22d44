import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { TemplateView } from '@pressroom/core';
import type { TemplateEvent } from '@pressroom/schemas';

/**
 * One isolated namespace of a template view, owned by one test. Every view `open()` returns
 * shares the same data (Redis: a new instance with its own connection, as another process would
 * have; memory: the same instance).
 */
export interface TemplateViewSpace {
  open(): Promise<TemplateView>;
  /** Closes every view opened and removes what the space stored. */
  dispose(): Promise<void>;
}

const at = (s: number) => `2030-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;

function created(tenantId: string, templateId: string, s = 1, name = 'Invoice'): TemplateEvent {
  return {
    eventId: randomUUID(),
    type: 'TemplateCreated',
    version: 1,
    occurredAt: at(s),
    tenantId,
    templateId,
    data: { templateVersion: 1, name, content: '<p>v1 <%= it.name %></p>', footer: '<small>1</small>' },
  };
}

function revised(tenantId: string, templateId: string, templateVersion: number, s: number): TemplateEvent {
  return {
    eventId: randomUUID(),
    type: 'TemplateRevised',
    version: 1,
    occurredAt: at(s),
    tenantId,
    templateId,
    data: { templateVersion, name: `Invoice v${templateVersion}`, content: `<p>v${templateVersion}</p>`, pdfParams: { format: 'A4' } },
  };
}

function deleted(tenantId: string, templateId: string, templateVersion: number, s: number): TemplateEvent {
  return { eventId: randomUUID(), type: 'TemplateDeleted', version: 1, occurredAt: at(s), tenantId, templateId, data: { templateVersion } };
}

/** The behaviour every TemplateView adapter must show (see the port's JSDoc). */
export function templateViewContract(name: string, options: { createSpace(): Promise<TemplateViewSpace> }): void {
  describe(`TemplateView contract: ${name}`, () => {
    let spaces: TemplateViewSpace[] = [];
    const space = async () => {
      const s = await options.createSpace();
      spaces.push(s);
      return s;
    };
    afterEach(async () => {
      await Promise.all(spaces.map((s) => s.dispose()));
      spaces = [];
    });

    it('keeps every version and the head of a template; applies are idempotent', async () => {
      const view = await (await space()).open();
      const events = [created('t1', 'tpl', 1), revised('t1', 'tpl', 2, 2)];
      for (const e of [...events, ...events]) await view.apply(e);
      expect(await view.head('t1', 'tpl')).toEqual({
        tenantId: 't1',
        templateId: 'tpl',
        latestVersion: 2,
        name: 'Invoice v2',
        createdAt: at(1),
        updatedAt: at(2),
      });
      // Absent version: the latest; a pinned one: that one, with its own content.
      expect(await view.version('t1', 'tpl')).toEqual({
        tenantId: 't1',
        templateId: 'tpl',
        version: 2,
        createdAt: at(2),
        name: 'Invoice v2',
        content: '<p>v2</p>',
        pdfParams: { format: 'A4' },
      });
      expect(await view.version('t1', 'tpl', 1)).toMatchObject({
        version: 1,
        content: '<p>v1 <%= it.name %></p>',
        footer: '<small>1</small>',
      });
      expect(await view.version('t1', 'tpl', 3)).toBeUndefined();
      expect((await view.versions('t1', 'tpl')).map((v) => v.version)).toEqual([1, 2]);
    });

    it('moves forward only: a revision applied before its creation (redelivery, two topics) still ends at the latest', async () => {
      const view = await (await space()).open();
      await view.apply(revised('t1', 'tpl', 2, 2));
      await view.apply(created('t1', 'tpl', 1));
      expect((await view.head('t1', 'tpl'))?.latestVersion).toBe(2);
      expect((await view.version('t1', 'tpl'))?.version).toBe(2);
      expect((await view.versions('t1', 'tpl')).map((v) => v.version)).toEqual([1, 2]);
    });

    it('loses no revision applied at the same time by two writers (ingress and projector)', async () => {
      const s = await space();
      const [a, b] = [await s.open(), await s.open()];
      await a.apply(created('t1', 'tpl', 1));
      const revisions = [2, 3, 4, 5].map((v) => revised('t1', 'tpl', v, v));
      await Promise.all(revisions.flatMap((e, i) => [(i % 2 ? a : b).apply(e), (i % 2 ? b : a).apply(e)]));
      expect((await a.head('t1', 'tpl'))?.latestVersion).toBe(5);
      expect((await b.versions('t1', 'tpl')).map((v) => v.version)).toEqual([1, 2, 3, 4, 5]);
    });

    it('a deleted template is absent from every read, and a replay of its creation does not bring it back', async () => {
      const view = await (await space()).open();
      const first = created('t1', 'tpl', 1);
      await view.apply(first);
      await view.apply(deleted('t1', 'tpl', 1, 2));
      await view.apply(first);
      expect(await view.head('t1', 'tpl')).toBeUndefined();
      expect(await view.version('t1', 'tpl')).toBeUndefined();
      expect(await view.version('t1', 'tpl', 1)).toBeUndefined();
      expect(await view.versions('t1', 'tpl')).toEqual([]);
      expect(await view.list('t1')).toEqual([]);
    });

    it('is scoped by tenant, and lists a tenant live templates oldest first', async () => {
      const view = await (await space()).open();
      await view.apply(created('t1', 'b', 2, 'B'));
      await view.apply(created('t1', 'a', 1, 'A'));
      await view.apply(created('t1', 'gone', 3, 'Gone'));
      await view.apply(deleted('t1', 'gone', 1, 4));
      await view.apply(created('t2', 'c', 1, 'C'));
      expect((await view.list('t1')).map((h) => h.templateId)).toEqual(['a', 'b']);
      expect(await view.head('t2', 'a')).toBeUndefined();
      expect(await view.version('t2', 'b')).toBeUndefined();
      expect((await view.list('t2')).map((h) => h.templateId)).toEqual(['c']);
    });

    it('is not built until marked, and clear forgets the data and the mark (a rebuild follows)', async () => {
      const s = await space();
      const view = await s.open();
      expect(await view.isBuilt()).toBe(false);
      await view.apply(created('t1', 'tpl', 1));
      await view.markBuilt();
      expect(await (await s.open()).isBuilt()).toBe(true);
      await view.clear();
      expect(await view.isBuilt()).toBe(false);
      expect(await view.head('t1', 'tpl')).toBeUndefined();
      expect(await view.list('t1')).toEqual([]);
    });
  });
}
