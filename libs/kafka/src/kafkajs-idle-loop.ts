import { createRequire } from 'node:module';

/** What this module touches of kafkajs's per-connection request queue (kafkajs 2.2.4). */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's own interval for re-checking requests held back by a broker's throttle. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;
const mended = Symbol.for('pressroom.kafkajs.idleLoopMended');

/** kafkajs's RequestQueue class, from the module instance `import 'kafkajs'` loads too. */
export function kafkajsRequestQueue(): { prototype: RequestQueueInternals } & (new (
  options: Record<string, unknown>,
) => RequestQueueInternals) {
  const RequestQueue: unknown = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js');
  return RequestQueue as { prototype: RequestQueueInternals } & (new (options: Record<string, unknown>) => RequestQueueInternals);
}

/**
 * Mends kafkajs 2.2.4's idle loop (tulios/kafkajs#1556, #1704; the fix of #1667 is unreleased and
 * kafkajs is no longer maintained): after every response, each broker connection's request queue
 * schedules a check of its pending requests even when none is pending, with a negative delay, and
 * the check schedules the next one — a timer firing about every millisecond per connection, for
 * the life of the process. Measured before this (four distributed apps, idle, nothing to consume):
 * 35–85 ms of CPU per second per app, and about 40 % more Node CPU per render under load.
 *
 * The queue only needs that timer while requests wait for a throttle to end: a request held back
 * because too many are in flight is sent when one of them is answered (fulfillRequest and the
 * request timeout both check the queue). So the timer is set only when something is pending, at
 * the end of the throttle or after kafkajs's own 10 ms. Idempotent; every app that creates a
 * kafkajs client calls it first.
 */
export function mendKafkajsIdleLoop(): void {
  const proto = kafkajsRequestQueue().prototype as RequestQueueInternals & { [mended]?: true };
  if (proto[mended]) return;
  if (typeof proto.scheduleCheckPendingRequests !== 'function' || typeof proto.checkPendingRequests !== 'function') {
    throw new Error('kafkajs changed: RequestQueue has no scheduleCheckPendingRequests; review libs/kafka/src/kafkajs-idle-loop.ts');
  }
  proto.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueInternals) {
    if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
    );
  };
  proto[mended] = true;
}
