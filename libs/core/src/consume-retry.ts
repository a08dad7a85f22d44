import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How every EventLog adapter waits before it hands a record whose handler failed to the handler
 * again (the embedded file log and Kafka back off alike): 100 ms, doubling per attempt, at most 5 s.
 * `attempt` counts from 1.
 */
export function consumeRetryDelayMs(attempt: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, attempt - 1));
}

/** Sleeps `ms`; resolves true when it slept, false (at once) when the signal aborts first. */
export async function backOff(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;
