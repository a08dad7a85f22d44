import { Histogram, type Registry } from 'prom-client';

/** How often the loop is sampled; a stall shorter than this can go unseen. */
const TICK_MS = 10;

/**
 * `pressroom_event_loop_delay_seconds`: how late a 10 ms timer fires, one observation per tick,
 * so a request that holds the event loop for 2 s lands once in the 2.5 s bucket. Cumulative,
 * unlike prom-client's `nodejs_eventloop_lag_max_seconds` (reset at every scrape): safe with
 * several scrapers, and `count - bucket{le="0.1"}` counts the stalls over 100 ms, the bound
 * every app is held to (no single request may block the event loop longer).
 */
export function monitorEventLoopDelay(registry: Registry): Histogram {
  const histogram = new Histogram({
    name: 'pressroom_event_loop_delay_seconds',
    help: 'Event-loop delay: how late a 10 ms timer fired, per tick.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  let expected = performance.now() + TICK_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    histogram.observe(Math.max(0, now - expected) / 1000);
    expected = now + TICK_MS;
  }, TICK_MS);
  timer.unref(); // never what keeps a process alive
  return histogram;
}
