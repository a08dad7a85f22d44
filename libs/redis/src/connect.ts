import { Redis } from 'ioredis';
import type { Logger } from '@pressroom/core';

/**
 * Opens one ioredis connection for one job (commands, or a subscription). Errors are logged
 * rather than thrown from the emitter: ioredis reconnects by itself, and a command issued
 * while it is down fails on its own after a bounded number of retries.
 */
export function connectRedis(args: { url: string; name: string; logger: Logger; subscriber?: boolean }): Redis {
  const redis = new Redis(args.url, {
    // CLIENT SETNAME refuses spaces; the name shows in CLIENT LIST, so operators can tell who is who.
    connectionName: args.name.replace(/[^\x21-\x7e]/g, '_'),
    // Commands fail fast while Redis is away; a subscription waits for it to come back.
    maxRetriesPerRequest: args.subscriber ? null : 3,
  });
  let lastLogged = 0;
  redis.on('error', (error: Error) => {
    // ioredis repeats the same error on every reconnect attempt; one line a second is enough.
    if (Date.now() - lastLogged < 1000) return;
    lastLogged = Date.now();
    args.logger.warn('redis connection error', { connection: args.name, error: error.message });
  });
  return redis;
}

/** Closes politely, or at once when the server does not answer. */
export async function disconnectRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  await Promise.race([redis.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  redis.disconnect();
}
