/** WaitTimeout happens when `waitFor`'s predicate is still false at its deadline. */
export class WaitTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitTimeoutError';
  }
}

export interface WaitOptions {
  /** The deadline: every wait in a test has one. */
  timeoutMs: number;
  /** Delay between two checks; 50 ms unless told. */
  intervalMs?: number;
  /** Named in the error, to say what was awaited. */
  description?: string;
}

/**
 * Checks `predicate` until it returns a truthy value (which is returned), or throws
 * WaitTimeoutError at the deadline. A predicate that throws counts as "not yet"; its last
 * error is kept as the timeout's cause.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  { timeoutMs, intervalMs = 50, description = 'condition' }: WaitOptions,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const err = new WaitTimeoutError(`Timed out after ${timeoutMs} ms waiting for ${description}.`);
      if (lastError !== undefined) err.cause = lastError;
      throw err;
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}
