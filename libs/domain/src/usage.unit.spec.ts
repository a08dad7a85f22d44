import { describe, expect, it } from 'vitest';
import type { LogEvent } from '@pressroom/schemas';
import { countPdfPages, emptyUsage, foldUsage, forgetCounted, usageBetween, usageRangeProblem } from './usage.ts';

const succeeded = (requestId: string, tenantId: string, occurredAt: string, bytes: number, pages?: number): LogEvent => ({
  eventId: `e-${requestId}-${occurredAt}`,
  type: 'RenderSucceeded',
  version: 1,
  occurredAt,
  requestId,
  tenantId,
  data: {
    mode: 'sync',
    artifact: { target: { kind: 'default' }, key: `${tenantId}/${requestId}.pdf`, contentType: 'application/pdf', bytes },
    executionMs: 1500,
    worker: 'w',
    ...(pages !== undefined ? { pages } : {}),
  },
});
const failed = (requestId: string, tenantId: string, occurredAt: string): LogEvent => ({
  eventId: `f-${requestId}`,
  type: 'RenderFailed',
  version: 1,
  occurredAt,
  requestId,
  tenantId,
  data: { mode: 'async', error: { code: 'RENDER_TIMEOUT', message: 'late' }, executionMs: 500, worker: 'w' },
});

describe('foldUsage', () => {
  it('counts each request once, by tenant and UTC day: renders by outcome, pages, bytes, seconds', () => {
    const events = [
      succeeded('r1', 'acme', '2026-11-22T10:00:00.000Z', 1000, 2),
      succeeded('r1', 'acme', '2026-11-22T10:00:05.000Z', 1000, 2), // a redelivery's second outcome
      failed('r2', 'acme', '2026-11-22T23:59:59.000Z'),
      succeeded('r3', 'acme', '2026-11-23T00:00:00.000Z', 300), // written before pages were recorded
      succeeded('r4', 'globex', '2026-11-22T12:00:00.000Z', 50, 1),
    ];
    const usage = events.reduce(foldUsage, emptyUsage());
    expect(usageBetween(usage, { from: '2026-11-22', to: '2026-11-23', tenantId: 'acme' })).toEqual([
      { date: '2026-11-22', tenantId: 'acme', renders: { succeeded: 1, failed: 1 }, pages: 2, bytes: 1000, renderSeconds: 2 },
      { date: '2026-11-23', tenantId: 'acme', renders: { succeeded: 1, failed: 0 }, pages: 0, bytes: 300, renderSeconds: 1.5 },
    ]);
    expect(usageBetween(usage, { from: '2026-11-22', to: '2026-11-22' }).map((d) => d.tenantId)).toEqual(['acme', 'globex']);
    expect(usageBetween(usage, { from: '2026-11-24', to: '2026-11-30' })).toEqual([]);
  });
});

describe('usageRangeProblem', () => {
  it('takes real days in order, at most 366 of them', () => {
    expect(usageRangeProblem('2026-01-01', '2026-12-31')).toBeUndefined();
    expect(usageRangeProblem('2026-02-30', '2026-03-01')).toMatch(/YYYY-MM-DD/);
    expect(usageRangeProblem('2026-03-02', '2026-03-01')).toMatch(/after/);
    expect(usageRangeProblem('2025-01-01', '2026-12-31')).toMatch(/366/);
    expect(usageRangeProblem(undefined, '2026-03-01')).toMatch(/YYYY-MM-DD/);
  });
});

describe('countPdfPages', () => {
  it('counts page objects, not the page tree', () => {
    const pdf = new TextEncoder().encode(
      '%PDF-1.4\n1 0 obj <</Type /Pages /Kids [2 0 R 3 0 R]>>\n2 0 obj <</Type/Page>>\n3 0 obj <</Type /Page /Parent 1 0 R>>',
    );
    expect(countPdfPages(pdf)).toBe(2);
  });
});

describe('forgetCounted', () => {
  it('forgets the requests first counted more than the window before the newest outcome, keeps the days', () => {
    const usage = [
      succeeded('old', 'acme', '2026-11-01T00:00:00.000Z', 10),
      succeeded('recent', 'acme', '2026-11-20T00:00:00.000Z', 10),
    ].reduce(foldUsage, emptyUsage());
    forgetCounted(usage.counted, Date.parse('2026-11-22T00:00:00.000Z'));
    expect([...usage.counted.keys()]).toEqual(['recent']);
    expect(usageBetween(usage, { from: '2026-11-01', to: '2026-11-30' }).map((d) => d.renders.succeeded)).toEqual([1, 1]);
    // A duplicate of a remembered request is still ignored
    foldUsage(usage, succeeded('recent', 'acme', '2026-11-21T00:00:00.000Z', 10));
    expect(usageBetween(usage, { from: '2026-11-21', to: '2026-11-21' })).toEqual([]);
  });
});
