import { afterEach, describe, expect, it } from 'vitest';
import { evolveStatus, PressroomError } from '@pressroom/domain';
import { silentLogger } from '@pressroom/core';
import type { PressroomEvent, StatusViewEntry } from '@pressroom/schemas';
import { waitFor } from '@pressroom/testing';
import { createAcceptedEntries, type AcceptedEntries } from './accepted-entries.ts';

/** A status view (the fold of @pressroom/domain in a map) that refuses writes while `away`. */
function flakyView() {
  const entries = new Map<string, StatusViewEntry>();
  const view = {
    away: false,
    applied: [] as string[],
    entries,
    async apply(event: PressroomEvent) {
      if (view.away) throw new PressroomError('DEPENDENCY_UNAVAILABLE', 'The status view (Redis) is unavailable.', { retryable: true });
      view.applied.push(`${event.type}:${event.requestId}`);
      const next = evolveStatus(entries.get(event.requestId), event);
      if (next) entries.set(event.requestId, next);
      return next;
    },
  };
  return view;
}

/** An event of request `requestId` (the fields the status fold reads). */
const eventOf = (type: string, requestId: string, data: Record<string, unknown>): PressroomEvent =>
  ({
    type,
    version: 1,
    eventId: `${type}-${requestId}`,
    occurredAt: '2026-11-28T12:00:00.000Z',
    requestId,
    tenantId: 't_acme',
    data,
  }) as unknown as PressroomEvent;
const requested = (requestId: string) =>
  eventOf('RenderRequested', requestId, { mode: 'async', source: { kind: 'html', html: '<p>x</p>' }, options: {} });
const succeeded = (requestId: string) =>
  eventOf('RenderSucceeded', requestId, {
    mode: 'async',
    artifact: { key: `k/${requestId}.pdf`, bytes: 10, contentType: 'application/pdf' },
    executionMs: 5,
  });

describe('accepted entries: what the ingress writes to the status view once the log took a request', () => {
  let accepted: AcceptedEntries | undefined;
  afterEach(() => accepted?.close());

  it('writes to the view at once when it takes them, keeping nothing', async () => {
    const view = flakyView();
    accepted = createAcceptedEntries({ view, logger: silentLogger });
    await accepted.record([requested('r1'), succeeded('r1')]);
    expect(view.applied).toEqual(['RenderRequested:r1', 'RenderSucceeded:r1']);
    expect(view.entries.get('r1')?.state).toBe('SUCCESS');
    expect(accepted.size).toBe(0);
    expect(accepted.pending('r1')).toBeUndefined();
  });

  it('never throws when the view is away: the entry is answered from here, then written in order once the view is back', async () => {
    const view = flakyView();
    accepted = createAcceptedEntries({ view, logger: silentLogger, retryDelayMs: () => 20 });
    view.away = true;
    await expect(accepted.record([requested('r1'), requested('r2'), succeeded('r1')])).resolves.toBeUndefined();
    expect(accepted.size).toBe(2);
    expect(accepted.pending('r1')).toMatchObject({ requestId: 'r1', tenantId: 't_acme', state: 'SUCCESS' });
    expect(accepted.pending('r2')).toMatchObject({ requestId: 'r2', tenantId: 't_acme', state: 'ONGOING' });
    // A later event of a waiting request waits behind it (the view sees each request's events in order)
    await accepted.record([succeeded('r2')]);
    expect(accepted.pending('r2')?.state).toBe('SUCCESS');
    await new Promise((r) => setTimeout(r, 100));
    expect(view.applied).toEqual([]);

    view.away = false;
    await waitFor(() => accepted!.size === 0, { timeoutMs: 5_000, description: 'the waiting requests written' });
    expect(view.applied).toEqual(['RenderRequested:r1', 'RenderSucceeded:r1', 'RenderRequested:r2', 'RenderSucceeded:r2']);
    expect(view.entries.get('r2')?.state).toBe('SUCCESS');
    expect(accepted.pending('r1')).toBeUndefined();
  });

  it('keeps at most maxPending requests while the view is away, dropping the oldest', async () => {
    const view = flakyView();
    accepted = createAcceptedEntries({ view, logger: silentLogger, retryDelayMs: () => 60_000, maxPending: 2 });
    view.away = true;
    await accepted.record([requested('r1')]);
    await accepted.record([requested('r2')]);
    await accepted.record([requested('r3')]);
    expect(accepted.size).toBe(2);
    expect(accepted.pending('r1')).toBeUndefined();
    expect(accepted.pending('r3')?.state).toBe('ONGOING');
  });
});
