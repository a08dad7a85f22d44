import type { Logger } from '@pressroom/core';
import type { Metrics } from '@pressroom/observability';

/**
 * The policy of a long-running app for errors no handler caught. Node's default is to exit;
 * for a service that would let one stray rejection (a late callback, a bug on a rare path) end
 * every tenant's requests, and in the embedded profile replay the same request into the same
 * crash at every restart. None of our apps runs tenant code or Playwright in its own process
 * (the renderer runs in a supervised child, which has the opposite policy: it exits and is
 * restarted, see libs/renderer/src/host/renderer-host.ts), so what is left here is our own state,
 * which the log makes recoverable: log the error with its stack, count it, keep serving.
 */
export function keepServingOnFaults(logger: Logger, metrics: Pick<Metrics, 'processFaultsTotal'>): void {
  process.on('uncaughtException', (err, origin) => {
    metrics.processFaultsTotal.inc({ kind: 'uncaughtException' });
    logger.error('uncaught exception; the process keeps serving', { err, origin });
  });
  process.on('unhandledRejection', (reason) => {
    metrics.processFaultsTotal.inc({ kind: 'unhandledRejection' });
    logger.error('unhandled promise rejection; the process keeps serving', { err: reason });
  });
}

/** For a one-shot command (ops): report the error and exit non-zero, as a CLI should. */
export function exitOnFaults(write: (line: string) => void = (l) => process.stderr.write(l)): void {
  const fail = (kind: string) => (err: unknown) => {
    write(`${kind}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', fail('uncaught exception'));
  process.on('unhandledRejection', fail('unhandled rejection'));
}
