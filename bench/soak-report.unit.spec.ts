import { describe, expect, it } from 'vitest';
import { floorGrowth, growth, metricValue, recycleSuspects, verdicts, type SoakSample } from './soak-report.ts';

const sample = (t: number, over: Partial<SoakSample> = {}): SoakSample => ({
  t,
  serviceRssMb: 500,
  chromiumRssMb: 700,
  appRssMb: 300,
  hostRssMb: 150,
  appHeapTotalMb: 80,
  appHeapUsedMb: 40,
  appExternalMb: 10,
  serviceFds: 60,
  chromiumFds: 200,
  serviceSockets: 8,
  serviceSnapshotFds: 0,
  serviceProcesses: 3,
  chromiumProcesses: 6,
  ok: t,
  failed: 0,
  fallbacks: 0,
  pagesReplaced: 0,
  hostRestarts: 0,
  renderFailures: 0,
  ...over,
});

describe('soak report: metrics text', () => {
  it('reads a counter, sums label sets that match, and ignores metrics sharing the prefix', () => {
    const text = [
      '# HELP pressroom_renders_total Renders.',
      '# TYPE pressroom_renders_total counter',
      'pressroom_renders_total{outcome="success",code=""} 40',
      'pressroom_renders_total{outcome="failure",code="RENDER_TIMEOUT"} 2',
      'pressroom_renders_total{outcome="failure",code="RENDER_CRASHED"} 1',
      'pressroom_renders_total_other 99',
      'pressroom_page_pool_replacements_total 7',
    ].join('\n');
    expect(metricValue(text, 'pressroom_renders_total', { outcome: 'failure' })).toBe(3);
    expect(metricValue(text, 'pressroom_renders_total')).toBe(43);
    expect(metricValue(text, 'pressroom_page_pool_replacements_total')).toBe(7);
    expect(metricValue(text, 'pressroom_page_pool_restarts_total')).toBe(0);
  });
});

describe('soak report: growth', () => {
  it('compares the median of the last samples with the first steady ones, leaving the settling samples out', () => {
    // Given a start that grows (0–20 s, settling), then a steady 600 MB with one spike, ending at 630
    const rss = [300, 450, 600, 610, 590, 900, 600, 620, 630, 640];
    const samples = rss.map((v, i) => sample(i * 10, { serviceRssMb: v }));
    // When growth is measured from 20 s on
    const g = growth(samples, (s) => s.serviceRssMb, 20);
    // Then first = median(600, 610, 590) and last = median(620, 630, 640); the spike is only the peak
    expect(g.first).toBe(600);
    expect(g.last).toBe(630);
    expect(g.delta).toBe(30);
    expect(g.percent).toBeCloseTo(5);
    expect(g.peak).toBe(900);
  });

  it('uses smaller windows for a short run', () => {
    const samples = [sample(0, { serviceFds: 50 }), sample(10, { serviceFds: 52 }), sample(20, { serviceFds: 55 })];
    const g = growth(samples, (s) => s.serviceFds, 10);
    expect([g.first, g.last, g.delta]).toEqual([52, 55, 3]);
  });

  it('compares the fewest descriptors held in the first steady minute and in the last: a busy sample lifts neither', () => {
    // Every 10 s for 10 minutes: 60 held, with the callers' connections of the moment on top.
    const busy = Array.from({ length: 61 }, (_, i) => sample(i * 10, { serviceFds: 60 + ((i * 7) % 5) }));
    expect(floorGrowth(busy, (s) => s.serviceFds, 120)).toMatchObject({ first: 60, last: 60, delta: 0, peak: 64 });
    // One descriptor leaked every minute: the floor rises.
    const leaking = busy.map((s) => ({ ...s, serviceFds: s.serviceFds + Math.floor(s.t / 60) }));
    const g = floorGrowth(leaking, (s) => s.serviceFds, 120);
    expect(g.delta).toBeGreaterThanOrEqual(7);
  });

  it('keeps the two windows apart in a short run', () => {
    const samples = [sample(0, { serviceFds: 50 }), sample(10, { serviceFds: 52 }), sample(20, { serviceFds: 55 })];
    expect(floorGrowth(samples, (s) => s.serviceFds, 0)).toMatchObject({ first: 50, last: 55, delta: 5 });
  });
});

describe('soak report: failures and recycles', () => {
  const samples = [
    sample(0),
    sample(10),
    sample(20, { pagesReplaced: 1 }), // a page was replaced between 10 and 20 s
    sample(30, { pagesReplaced: 1 }),
    sample(40, { pagesReplaced: 1 }),
    sample(50, { pagesReplaced: 1 }),
  ];

  it('suspects failures in or just after an interval in which a page was replaced, and every RENDER_CRASHED', () => {
    const near = { start: 14, end: 15, code: 'RENDER_ERROR' };
    const justAfter = { start: 24, end: 25, code: 'RENDER_TIMEOUT' };
    const far = { start: 44, end: 45, code: 'RENDER_TIMEOUT' };
    const crashed = { start: 1, end: 2, code: 'RENDER_CRASHED' };
    expect(recycleSuspects([near, justAfter, far, crashed], samples)).toEqual([near, justAfter, crashed]);
  });

  it('passes every target for a flat run without failures, and says how many recycles it saw', () => {
    const v = verdicts(samples, [], 0);
    expect(v.every((x) => x.pass)).toBe(true);
    expect(v.at(-1)!.detail).toContain('1 pages replaced');
  });

  it('fails RSS growth of 10 % or more, fd growth, and a failure near a recycle', () => {
    const grown = samples.map((s, i) => ({ ...s, chromiumRssMb: 700 + i * 40, serviceFds: 60 + i }));
    const v = verdicts(grown, [{ start: 15, end: 16, code: 'RENDER_ERROR' }], 0);
    const byName = Object.fromEntries(v.map((x) => [x.name, x.pass]));
    expect(byName['Chromium RSS growth < 10 %']).toBe(false);
    expect(byName['service Node RSS growth < 10 %']).toBe(true);
    expect(byName['service Node fds (but its attached snapshot files): no growth']).toBe(false);
    expect(byName['Chromium fds: no growth']).toBe(true);
    expect(byName['no failed render caused by a page or browser recycle']).toBe(false);
  });

  it('judges the attached snapshot files by their bound: opened at the first saves, they lift no other verdict', () => {
    // Given the status view's base opened at 300 s and its delta at 600 s (fds 60 -> 61 -> 62)
    const snapshotsOpened = Array.from({ length: 121 }, (_, i) => {
      const snapshots = i * 10 >= 600 ? 2 : i * 10 >= 300 ? 1 : 0;
      return sample(i * 10, { serviceFds: 60 + snapshots, serviceSnapshotFds: snapshots });
    });
    const byName = Object.fromEntries(verdicts(snapshotsOpened, [], 120).map((x) => [x.name, x]));
    // Then the other fds did not grow, and the snapshot files stayed within a base and a delta per indexed view
    expect(byName['service Node fds (but its attached snapshot files): no growth']!.pass).toBe(true);
    const bound = byName["service's attached snapshot files ≤ 4 (a base and a delta per indexed view)"]!;
    expect(bound.pass).toBe(true);
    expect(bound.detail).toContain('0 → 2');
    // And a snapshot file leaked at every save would break the bound
    const leaking = snapshotsOpened.map((s) => ({
      ...s,
      serviceSnapshotFds: Math.floor(s.t / 120),
      serviceFds: 60 + Math.floor(s.t / 120),
    }));
    const leaked = Object.fromEntries(verdicts(leaking, [], 120).map((x) => [x.name, x.pass]));
    expect(leaked["service's attached snapshot files ≤ 4 (a base and a delta per indexed view)"]).toBe(false);
  });

  it('says when no recycle happened, so the last target proves nothing', () => {
    const flat = [sample(0), sample(10), sample(20)];
    expect(verdicts(flat, [], 0).at(-1)!.detail).toContain('no recycle happened');
  });
});
