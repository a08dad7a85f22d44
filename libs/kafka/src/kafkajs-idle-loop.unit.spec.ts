import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { kafkajsRequestQueue, mendKafkajsIdleLoop } from './kafkajs-idle-loop.ts';

/** A connection's request queue as kafkajs builds it, counting how often it checks its pending requests. */
function queueCountingChecks() {
  const RequestQueue = kafkajsRequestQueue();
  const logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const queue = new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 't',
    broker: 'b:9092',
    logger,
  });
  let checks = 0;
  const check = queue.checkPendingRequests.bind(queue);
  queue.checkPendingRequests = () => {
    checks++;
    check();
  };
  return { queue, checks: () => checks, destroy: () => (queue as unknown as { destroy(): void }).destroy() };
}

describe('kafkajs idle loop, mended', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('checks an empty queue once per response, not again every millisecond after it', () => {
    mendKafkajsIdleLoop();
    const { queue, checks, destroy } = queueCountingChecks();

    // When a response arrives (fulfillRequest checks the queue) and a second passes with nothing pending
    queue.checkPendingRequests();
    vi.advanceTimersByTime(1_000);

    // Then the queue was checked once; kafkajs 2.2.4 as published checks it ~1,000 times
    expect(checks()).toBe(1);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    destroy();
  });

  it('still comes back for a request held back by a throttle, when the throttle ends', () => {
    mendKafkajsIdleLoop();
    const { queue, checks, destroy } = queueCountingChecks();

    // Given a request waiting while the broker throttles this client for 200 ms
    let sent = 0;
    queue.pending.push({ expectResponse: true, send: () => sent++ });
    queue.throttledUntil = Date.now() + 200;
    queue.scheduleCheckPendingRequests();

    // Then the queue is checked when the throttle ends, not before
    vi.advanceTimersByTime(199);
    expect(checks()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(checks()).toBe(1);
    expect(sent).toBe(1);
    destroy();
  });

  it('is idempotent', () => {
    mendKafkajsIdleLoop();
    const method = () => Object.getOwnPropertyDescriptor(kafkajsRequestQueue().prototype, 'scheduleCheckPendingRequests')?.value as unknown;
    const mended = method();
    mendKafkajsIdleLoop();
    expect(method()).toBe(mended);
  });
});
