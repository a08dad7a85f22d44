import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StatusView } from '@pressroom/core';
import type { RenderFailed, RenderRequested, RenderSucceeded } from '@pressroom/schemas';
import { requestEvent, spacesPerTest } from './contract-support.ts';

/**
 * One isolated namespace of a status view, owned by one test. `open()` may be called more
 * than once: every view it returns shares the same entries (for Redis, a new instance with
 * its own connections, as another process would have; in memory, the same instance).
 */
export interface StatusViewSpace {
  open(): Promise<StatusView>;
  /** Closes every view opened and removes what the space stored. */
  dispose(): Promise<void>;
}

export interface StatusViewContractOptions {
  createSpace(): Promise<StatusViewSpace>;
}

const tenantId = 'tenant-contract';

const at = (requestId: string, occurredAt: string) => ({ requestId, tenantId, occurredAt });

function requested(requestId: string, occurredAt = '2030-01-01T00:00:00.000Z'): RenderRequested {
  return requestEvent('RenderRequested', at(requestId, occurredAt), {
    mode: 'sync',
    source: { kind: 'html', html: '<p>hi</p>' },
    output: 'pdf',
    storage: { kind: 'default' },
  });
}

function succeeded(requestId: string, key = `${tenantId}/${requestId}.pdf`): RenderSucceeded {
  return requestEvent('RenderSucceeded', at(requestId, '2030-01-01T00:00:02.000Z'), {
    mode: 'sync',
    artifact: { target: { kind: 'default' }, key, contentType: 'application/pdf', bytes: 1234 },
    executionMs: 850,
    worker: 'contract',
  });
}

function failed(requestId: string): RenderFailed {
  return requestEvent('RenderFailed', at(requestId, '2030-01-01T00:00:03.000Z'), {
    mode: 'sync',
    error: { code: 'RENDER_TIMEOUT', message: 'too slow' },
    executionMs: 30000,
    worker: 'contract',
  });
}

/** The behaviour every StatusView adapter must show (see the port's JSDoc). */
export function statusViewContract(name: string, options: StatusViewContractOptions): void {
  describe(`StatusView contract: ${name}`, () => {
    const open = spacesPerTest(() => options.createSpace());

    it('applies an event idempotently', async () => {
      // Given a view and one RenderRequested
      const view = await (await open()).open();
      const id = randomUUID();
      const event = requested(id);
      // When it is applied twice
      const first = await view.apply(event);
      const second = await view.apply(event);
      // Then the entry is ONGOING once, with the same content
      expect(first).toMatchObject({ requestId: id, tenantId, state: 'ONGOING', mode: 'sync', requestedAt: event.occurredAt });
      expect(second).toEqual(first);
      expect(await view.get(id)).toEqual(first);
    });

    it('only moves forward', async () => {
      const view = await (await open()).open();
      const id = randomUUID();
      await view.apply(requested(id));
      await view.apply(succeeded(id));
      // When a redelivered RenderRequested arrives after the success
      const after = await view.apply(requested(id));
      // Then the entry stays SUCCESS
      expect(after?.state).toBe('SUCCESS');
      expect((await view.get(id))?.state).toBe('SUCCESS');
    });

    it('ends SUCCESS when RenderSucceeded arrives before RenderRequested', async () => {
      const view = await (await open()).open();
      const id = randomUUID();
      const done = succeeded(id);
      const req = requested(id);
      await view.apply(done);
      const entry = await view.apply(req);
      expect(entry).toMatchObject({ state: 'SUCCESS', requestedAt: req.occurredAt, completedAt: done.occurredAt });
      expect(entry?.artifact).toEqual(done.data.artifact);
    });

    it('keeps the first terminal event when duplicates or contradictions follow', async () => {
      const view = await (await open()).open();
      const id = randomUUID();
      const first = succeeded(id, `${tenantId}/first.pdf`);
      await view.apply(requested(id));
      await view.apply(first);
      await view.apply(succeeded(id, `${tenantId}/second.pdf`));
      await view.apply(failed(id));
      const entry = await view.get(id);
      expect(entry?.state).toBe('SUCCESS');
      expect(entry?.artifact?.key).toBe(`${tenantId}/first.pdf`);
      expect(entry?.error).toBeUndefined();
    });

    it('ignores events that do not concern the status', async () => {
      const view = await (await open()).open();
      const id = randomUUID();
      const result = await view.apply(
        requestEvent('WebhookDelivered', at(id, '2030-01-01T00:00:04.000Z'), {
          url: 'https://example.test/hook',
          statusCode: 200,
          durationMs: 12,
          renderStatus: 'SUCCESS',
        }),
      );
      expect(result).toBeUndefined();
      expect(await view.get(id)).toBeUndefined();
    });

    it('stays consistent under concurrent applies from several views', async () => {
      // Given two views on the same entries (two processes in the distributed profile)
      const space = await open();
      const [a, b] = [await space.open(), await space.open()];
      const id = randomUUID();
      // When both apply a burst of events for one render at the same time
      const events = [requested(id), succeeded(id), failed(id), requested(id), succeeded(id)];
      await Promise.all([...events.map((e) => a.apply(e)), ...events.map((e) => b.apply(e))]);
      // Then the entry is terminal, carries requestedAt, and both views read the same thing
      const entry = await a.get(id);
      expect(entry?.state === 'SUCCESS' || entry?.state === 'FAILED').toBe(true);
      expect(entry?.requestedAt).toBeDefined();
      expect(await b.get(id)).toEqual(entry);
    });

    it('wakes a waiter of another view when the entry becomes terminal', async () => {
      // Given a waiter on view B for an ONGOING render
      const space = await open();
      const [a, b] = [await space.open(), await space.open()];
      const id = randomUUID();
      await a.apply(requested(id));
      const started = Date.now();
      const waiting = b.waitForTerminal(id, 10_000);
      // When view A applies the success (right away: registration must not lose it)
      await a.apply(succeeded(id));
      // Then B's waiter resolves with SUCCESS well before its timeout
      const entry = await waiting;
      expect(entry?.state).toBe('SUCCESS');
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('wakes a waiter registered before the render was even requested', async () => {
      const space = await open();
      const [a, b] = [await space.open(), await space.open()];
      const id = randomUUID();
      const waiting = b.waitForTerminal(id, 10_000);
      await a.apply(failed(id));
      expect((await waiting)?.state).toBe('FAILED');
    });

    it('resolves at once when the entry is already terminal', async () => {
      const view = await (await open()).open();
      const id = randomUUID();
      await view.apply(succeeded(id));
      const started = Date.now();
      expect((await view.waitForTerminal(id, 10_000))?.state).toBe('SUCCESS');
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('times out returning the current ONGOING entry, or undefined for an unknown id', async () => {
      const view = await (await open()).open();
      const id = randomUUID();
      await view.apply(requested(id));
      const started = Date.now();
      const entry = await view.waitForTerminal(id, 300);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(entry?.state).toBe('ONGOING');
      expect(await view.waitForTerminal(randomUUID(), 100)).toBeUndefined();
    });

    it('serves many waiters of one render at once', async () => {
      const space = await open();
      const [a, b] = [await space.open(), await space.open()];
      const id = randomUUID();
      const waiters = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).waitForTerminal(id, 10_000));
      await a.apply(succeeded(id));
      const results = await Promise.all(waiters);
      expect(results.every((e) => e?.state === 'SUCCESS')).toBe(true);
    });

    it('applies a batch of events as one apply each, reads many entries in order, and wakes waiters of a batch', async () => {
      const space = await open();
      const [a, b] = [await space.open(), await space.open()];
      const [done, broken, ongoing] = [randomUUID(), randomUUID(), randomUUID()];
      const waiting = b.waitForTerminal(done, 10_000);
      // Out of order and with a redelivery, as a replay of several topics hands them over.
      await a.applyMany([succeeded(done), requested(done), requested(broken), requested(ongoing), failed(broken), requested(done)]);
      expect((await waiting)?.state).toBe('SUCCESS');
      const entries = await b.getMany([ongoing, randomUUID(), done, broken]);
      expect(entries.map((e) => e?.state)).toEqual(['ONGOING', undefined, 'SUCCESS', 'FAILED']);
      expect(entries[0]).toEqual(await b.get(ongoing));
      await a.applyMany([]);
    });

    it('clear() removes every entry', async () => {
      const view = await (await open()).open();
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      for (const id of ids) await view.apply(requested(id));
      await view.clear();
      for (const id of ids) expect(await view.get(id)).toBeUndefined();
      // and the view keeps working after a clear (a rebuild from the log follows)
      await view.apply(succeeded(ids[0]!));
      expect((await view.get(ids[0]!))?.state).toBe('SUCCESS');
    });

    it('answers ping', async () => {
      const view = await (await open()).open();
      await expect(view.ping()).resolves.toBeUndefined();
    });
  });
}
