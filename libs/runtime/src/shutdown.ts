import type { Logger } from '@pressroom/core';

/**
 * Runs the steps in order on SIGTERM/SIGINT (stop taking work, finish what is in flight,
 * release connections), then exits. A second signal exits at once.
 */
export function onShutdown(logger: Logger, steps: (() => Promise<unknown>)[]): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info('shutting down', { signal });
    void (async () => {
      for (const step of steps) {
        try {
          await step();
        } catch (err) {
          logger.warn('shutdown step failed', { err });
        }
      }
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
