import { PressroomError } from '@pressroom/domain';

/**
 * Wraps a Redis command so a Redis failure becomes the port's error (DEPENDENCY_UNAVAILABLE,
 * retryable) and no SDK error crosses the port. `what` names the store in the message.
 */
export function redisGuard(what: string) {
  return async function guard<T>(command: Promise<T>): Promise<T> {
    try {
      const result = await command;
      // A MULTI answers per command; a failed one must not pass for a write.
      if (Array.isArray(result)) for (const item of result) if (Array.isArray(item) && item[0] instanceof Error) throw item[0];
      return result;
    } catch (error) {
      if (error instanceof PressroomError) throw error;
      throw new PressroomError('DEPENDENCY_UNAVAILABLE', `The ${what} (Redis) is unavailable.`, { retryable: true, cause: error });
    }
  };
}
