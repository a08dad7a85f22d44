import { silentLogger, type Logger, type PayloadCopies } from '@pressroom/core';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';

const guard = redisGuard('payload copies');

/** How long a copy waits for its render: a sync render's worker takes it within milliseconds; one queued longer reads the object. */
export const DEFAULT_PAYLOAD_COPY_TTL_MS = 60_000;
/** Largest payload copied: the invoice's is a few kilobytes; a large one is read from storage like before. */
export const DEFAULT_PAYLOAD_COPY_MAX_BYTES = 256 * 1024;

export interface RedisPayloadCopiesOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
  ttlMs?: number;
  maxBytes?: number;
}

/**
 * The distributed profile's payload copies (see PayloadCopies):
 *
 *   <prefix>payload-copy:<storage key>   the payload's bytes, with a TTL
 *
 * Taken with GETDEL (Redis 6.2+), so a copy is read once and memory holds only the payloads of
 * requests not yet taken (bounded by the TTL).
 */
export function createRedisPayloadCopies(options: RedisPayloadCopiesOptions): PayloadCopies {
  const logger = options.logger ?? silentLogger;
  const redis = connectRedis({ url: options.url, name: `pressroom-payload-copies@${options.keyPrefix}`, logger });
  const ttlMs = options.ttlMs ?? DEFAULT_PAYLOAD_COPY_TTL_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_PAYLOAD_COPY_MAX_BYTES;
  const keyOf = (key: string) => `${options.keyPrefix}payload-copy:${key}`;
  return {
    async put(key, bytes) {
      if (bytes.byteLength > maxBytes) return false;
      await guard(redis.set(keyOf(key), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'PX', ttlMs));
      return true;
    },
    async take(key) {
      const bytes = await guard(redis.getdelBuffer(keyOf(key)));
      return bytes ?? undefined;
    },
    async remove(keys) {
      if (keys.length) await guard(redis.del(...keys.map(keyOf)));
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}
