import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { monitorEventLoopDelay, ticksAtMost, eventLoopBuckets, type TickHistogram } from './event-loop-delay.ts';

/** Recorded values (ns) answering as Node's native histogram does: the value at rank round(p/100·n). */
function recorded(values: number[]): TickHistogram {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return {
    count: n,
    min: n ? sorted[0]! : 9223372036854776000,
    max: n ? sorted[n - 1]! : 0,
    mean: n ? sorted.reduce((a, b) => a + b, 0) / n : NaN,
    percentile: (p: number) => sorted[Math.max(1, Math.floor((p / 100) * n + 0.5)) - 1]!,
  };
}

const ms = (v: number) => Math.round(v * 1e6);

describe('event-loop delay', () => {
  it('counts the ticks at or under a bound exactly, for any spread of values', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(random() * 400);
      const values = Array.from({ length: n }, () => ms(10 + (random() < 0.05 ? random() * 3000 : random() * 5)));
      const h = recorded(values);
      for (const boundMs of [9, 10.5, 12, 15, 60, 110, 1010, 5000]) {
        expect(ticksAtMost(h, ms(boundMs))).toBe(values.filter((v) => v <= ms(boundMs)).length);
      }
    }
    expect(ticksAtMost(recorded([]), ms(100))).toBe(0);
  });

  it('prints the delays beyond the timer resolution as cumulative buckets, a sum and a count', () => {
    // 170 ticks on time, one 250 ms stall, one 40 ms late.
    const h = recorded([...Array.from({ length: 170 }, () => ms(10.2)), ms(260), ms(50)]);
    const lines = eventLoopBuckets(h, 10);
    const bucket = (le: number | '+Inf') => lines.find((l) => l.metricName.endsWith('_bucket') && l.labels.le === le)?.value;
    expect(bucket(0.005)).toBe(170);
    expect(bucket(0.05)).toBe(171);
    expect(bucket(0.1)).toBe(171);
    expect(bucket(0.25)).toBe(172);
    expect(bucket('+Inf')).toBe(172);
    expect(lines.find((l) => l.metricName.endsWith('_count'))?.value).toBe(172);
    expect(lines.find((l) => l.metricName.endsWith('_sum'))?.value).toBeCloseTo(0.034 + 0.25 + 0.04, 6);
  });

  it('counts a stall of the event loop over 100 ms once, as a scrape reads it', async () => {
    const registry = new Registry();
    monitorEventLoopDelay(registry);
    const read = async () => {
      const text = await registry.metrics();
      const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
      const count = num(/^pressroom_event_loop_delay_seconds_count (\S+)$/m);
      return { count, over100: count - num(/^pressroom_event_loop_delay_seconds_bucket\{le="0\.1"\} (\S+)$/m) };
    };
    await new Promise((r) => setTimeout(r, 200));
    const before = await read();
    expect(before.count).toBeGreaterThan(0);
    expect(before.over100).toBe(0);
    const until = performance.now() + 250;
    while (performance.now() < until); // holds the loop
    await new Promise((r) => setTimeout(r, 100));
    const after = await read();
    expect(after.over100).toBe(1);
    expect(after.count).toBeGreaterThan(before.count);
  });
});
