import { describe, expect, it } from 'vitest';
import type { PressroomEvent } from '@pressroom/schemas';
import { evolveStatus } from './status.ts';
import { syncRenderEvents } from './test-support/render-events.ts';

const ids = { requestId: '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10', tenantId: 't1' };
const { requested, succeeded, failed } = syncRenderEvents(ids.requestId);

const fold = (events: PressroomEvent[]) => events.reduce(evolveStatus, undefined);

describe('evolveStatus', () => {
  it("keeps the request's externalId, link lifetime and debug report, and shows externalId on the status body only when sent", async () => {
    const { statusBody } = await import('./webhook-body.ts');
    const withExtras = (e: PressroomEvent): PressroomEvent =>
      ({ ...e, data: { ...e.data, externalId: 'order-1', linkTtlSeconds: 120 } }) as PressroomEvent;
    const debugArtifact = { target: { kind: 'default' as const }, key: 't1/x.pdf.debug.json', contentType: 'application/json', bytes: 9 };
    const done = withExtras({ ...succeeded, data: { ...succeeded.data, debugArtifact } });
    const entry = fold([withExtras(requested), done]);
    expect(entry).toMatchObject({ state: 'SUCCESS', externalId: 'order-1', linkTtlSeconds: 120, debugArtifact });
    // A completion seen first (the webhook dispatcher's view) carries them too.
    expect(fold([done])).toMatchObject({ externalId: 'order-1', linkTtlSeconds: 120 });
    expect(statusBody(entry!, 'https://x')).toMatchObject({ renderStatus: 'SUCCESS', externalId: 'order-1' });
    expect(Object.keys(statusBody(fold([requested, succeeded])!, 'https://x'))).toEqual([
      'requestId',
      'renderStatus',
      'signedUrl',
      'metadata',
    ]);
  });

  it('goes ONGOING then SUCCESS', () => {
    expect(fold([requested])?.state).toBe('ONGOING');
    expect(fold([requested, succeeded])).toMatchObject({ state: 'SUCCESS', executionMs: 900, requestedAt: requested.occurredAt });
  });

  it('ends in the same state whatever order the topics deliver in', () => {
    expect(fold([succeeded, requested])).toEqual(fold([requested, succeeded]));
  });

  it('is idempotent and keeps the first terminal event', () => {
    expect(fold([requested, succeeded, succeeded, failed, requested])).toEqual(fold([requested, succeeded]));
    expect(fold([requested, failed, succeeded])?.state).toBe('FAILED');
  });
});

describe('evolveStatus: render attempts', () => {
  const attempt = (n: number): PressroomEvent => ({
    ...ids,
    eventId: `a${n}`,
    type: 'RenderAttemptStarted',
    version: 1,
    occurredAt: '2026-11-22T10:00:00.500Z',
    data: { attempt: n, worker: 'w' },
  });

  it('counts the highest attempt started, whatever the order and however often each is applied', () => {
    expect(fold([requested, attempt(1), attempt(2)])?.attempts).toBe(2);
    expect(fold([attempt(2), requested, attempt(1), attempt(2)])?.attempts).toBe(2);
  });

  it("keeps the request's own mode when an attempt is seen before the request", () => {
    expect(fold([attempt(1), requested])).toMatchObject({ mode: 'sync', state: 'ONGOING', attempts: 1 });
  });

  it('does not move a finished render', () => {
    expect(fold([requested, attempt(1), failed, attempt(2)])).toMatchObject({ state: 'FAILED', attempts: 2 });
  });

  it('marks a removal once (the first wins: an expiry then a DELETE stays EXPIRED); a removal before any event is ignored', () => {
    const removed = (reason: 'EXPIRED' | 'DELETED', second: number): PressroomEvent => ({
      ...ids,
      eventId: `rm-${second}`,
      type: 'ArtifactRemoved',
      version: 1,
      occurredAt: `2026-11-22T10:00:0${second}.000Z`,
      data: { reason, keys: ['t1/x.pdf'], by: 'sweeper' },
    });
    expect(fold([requested, succeeded, removed('EXPIRED', 5), removed('DELETED', 6)])?.removed).toEqual({
      reason: 'EXPIRED',
      at: '2026-11-22T10:00:05.000Z',
    });
    expect(fold([removed('DELETED', 6)])).toBeUndefined();
  });
});
