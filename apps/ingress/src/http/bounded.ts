/**
 * A quota check waits at most this long for its store: past it the request goes on (fail-open),
 * so a Redis that hangs (reconnecting, partitioned) costs a request a bounded delay, never an error.
 */
export const QUOTA_CHECK_TIMEOUT_MS = 1_000;

/** Resolves as `work` does, or rejects once `ms` passed (the work goes on, its result ignored). */
export async function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
