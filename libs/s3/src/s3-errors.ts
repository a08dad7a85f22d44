import { PressroomError } from '@pressroom/domain';

interface SdkErrorShape {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

/** The HTTP status an SDK error came with, if it came from a response at all. */
export function statusOf(error: unknown): number | undefined {
  return (error as SdkErrorShape | undefined)?.$metadata?.httpStatusCode;
}

export function nameOf(error: unknown): string | undefined {
  return (error as SdkErrorShape | undefined)?.name;
}

/**
 * Turns an SDK failure into the port's error, so no SDK type crosses the port. Retrying helps
 * when the server was unreachable, throttled us or failed (5xx); not for a refusal (4xx:
 * wrong credentials, no such bucket), which needs someone to change the configuration.
 */
export function storageError(action: string, error: unknown): PressroomError {
  const status = statusOf(error);
  const retryable = status === undefined || status >= 500 || status === 429;
  // No response at all (refused, reset, timed out): the transport's own message says which.
  const transport = status === undefined && error instanceof Error && error.message ? `: ${error.message.slice(0, 200)}` : '';
  const detail = [nameOf(error), status].filter((x) => x !== undefined).join(' ') + transport;
  return new PressroomError('DEPENDENCY_UNAVAILABLE', `S3 ${action} failed${detail ? ` (${detail})` : ''}.`, { retryable, cause: error });
}
