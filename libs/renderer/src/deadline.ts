/** DeadlineExceeded happens when the work given to withDeadline is still running at its deadline. */
export class DeadlineExceeded extends Error {
  readonly ms: number;
  constructor(ms: number) {
    super(`did not finish within ${ms} ms`);
    this.ms = ms;
    this.name = 'DeadlineExceeded';
  }
}

/**
 * Settles like `work`, or rejects with DeadlineExceeded after `ms`. The work is not cancelled:
 * whoever owns it must stop it (close the page); its late rejection is swallowed here so that it
 * never surfaces as an unhandled rejection.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(ms)), ms);
  });
  work.catch(() => {});
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
