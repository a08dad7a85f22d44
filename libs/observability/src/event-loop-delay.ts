import { monitorEventLoopDelay as nativeEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Histogram, Registry } from 'prom-client';

/** How often the loop is sampled; a stall shorter than this can go unseen. */
const TICK_MS = 10;

const NAME = 'pressroom_event_loop_delay_seconds';
const HELP = 'Event-loop delay: how late a 10 ms timer fired, per tick.';
const BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What is read of Node's native event-loop histogram (never reset: it is the cumulative record). */
export type TickHistogram = Pick<IntervalHistogram, 'count' | 'min' | 'max' | 'mean' | 'percentile'>;

/**
 * `pressroom_event_loop_delay_seconds`: how late a 10 ms timer fires, one observation per tick,
 * so a request that holds the event loop for 2 s lands once in the 2.5 s bucket. Cumulative,
 * unlike prom-client's `nodejs_eventloop_lag_max_seconds` (reset at every scrape): safe with
 * several scrapers, and `count - bucket{le="0.1"}` counts the stalls over 100 ms, the bound
 * every app is held to (no single request may block the event loop longer).
 *
 * The ticks are Node's own (perf_hooks.monitorEventLoopDelay: a libuv timer recording into a
 * native histogram, no JavaScript per tick); a scrape reads the buckets off it (eventLoopBuckets).
 * The JavaScript timer every 10 ms this replaces cost each app ~15 ms of CPU per second doing
 * nothing, half of a distributed app's idle CPU (issue 13); the native one costs ~2.
 *
 * Registered as a metric of its own (what the registry reads of a metric: name, help, type,
 * get()), not a prom-client Histogram: a Histogram only counts what is observed into it one value
 * at a time, and the native histogram's ticks are read as counts.
 */
export function monitorEventLoopDelay(registry: Registry): void {
  const ticks = nativeEventLoopDelay({ resolution: TICK_MS });
  ticks.enable();
  const described = { name: NAME, help: HELP, type: 'histogram' as const, aggregator: 'sum' as const };
  const metric = {
    ...described,
    get: async () => ({ ...described, values: eventLoopBuckets(ticks) }),
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Histogram);
}

/** A histogram's lines as prom-client's registry prints them. */
interface HistogramValue {
  metricName: string;
  labels: { le?: number | '+Inf' };
  value: number;
}

/**
 * The Prometheus histogram of the ticks recorded so far: per bucket, the ticks whose delay (the
 * time between two firings beyond the timer's resolution) is at most its bound, exactly (by rank,
 * ticksAtMost); the sum from the native mean (HdrHistogram's precision, 3 significant digits).
 */
export function eventLoopBuckets(h: TickHistogram, resolutionMs = TICK_MS): HistogramValue[] {
  const count = h.count;
  const resolutionNs = resolutionMs * 1e6;
  const bucket = (le: number | '+Inf', value: number): HistogramValue => ({ metricName: `${NAME}_bucket`, labels: { le }, value });
  const sum = count > 0 ? Math.max(0, (h.mean - resolutionNs) * count) / 1e9 : 0;
  return [
    ...BUCKETS_SECONDS.map((le) => bucket(le, ticksAtMost(h, resolutionNs + le * 1e9))),
    bucket('+Inf', count),
    { metricName: `${NAME}_sum`, labels: {}, value: sum },
    { metricName: `${NAME}_count`, labels: {}, value: count },
  ];
}

/**
 * How many recorded ticks took at most `boundNs`: the native histogram answers only "the value at
 * a percentile", and the value at rank r of n is the value at percentile 100·r/n (HdrHistogram
 * rounds that back to rank r), so the count is found by bisecting the ranks. Free when the bound
 * is above every tick (the usual case: no stall) or below all of them.
 */
export function ticksAtMost(h: TickHistogram, boundNs: number): number {
  const n = h.count;
  if (n === 0 || h.min > boundNs) return 0;
  if (h.max <= boundNs) return n;
  const valueAtRank = (r: number) => h.percentile((100 * r) / n);
  let lo = 1; // valueAtRank(lo) <= boundNs (the min is)
  let hi = n; // valueAtRank(hi) > boundNs (the max is)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (valueAtRank(mid) <= boundNs) lo = mid;
    else hi = mid;
  }
  return lo;
}
