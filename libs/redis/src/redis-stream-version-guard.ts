import { randomUUID } from 'node:crypto';
import { PressroomError } from '@pressroom/domain';
import { silentLogger, type Logger, type StreamVersionGuard } from '@pressroom/core';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';

const guard = redisGuard('stream version guard');

export interface RedisStreamVersionGuardOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  /**
   * How long after a reservation its append can still land on the log although the writer
   * was told it failed (Kafka producer retries). A reservation older than this that was never
   * settled is checked against the log again. Default 120 000 ms.
   */
  settleMs?: number;
  logger?: Logger;
}

/**
 * Reserves `ARGV[2]` (the next version) when the stream is at `ARGV[1]`, recording the
 * reservation's token and time. Answers 'OK', 'UNSEEDED' (the guard does not know the topic)
 * or the stored value (`version|token|reservedAtMs`, token '-' once settled). Once a topic is
 * seeded, a stream without a key is a new stream: version 0.
 *   KEYS[1] stream, KEYS[2] topic marker   ARGV: expected, next, token, nowMs
 */
const RESERVE = `
if redis.call('EXISTS', KEYS[2]) == 0 then return 'UNSEEDED' end
local cur = redis.call('GET', KEYS[1]) or '0|-|0'
local version = tonumber(string.match(cur, '^(%d+)|'))
if version == tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2] .. '|' .. ARGV[3] .. '|' .. ARGV[4])
  return 'OK'
end
return cur
`;

/** Sets KEYS[1] to ARGV[2] when it still holds ARGV[1]. */
const REPLACE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/**
 * The stream versions of a log that cannot check them itself (Kafka has no conditional
 * append). Layout: `<prefix>stream-version:<topic>:<key>` = `version|token|reservedAtMs`,
 * and `<prefix>stream-versions-seeded:<topic>` once the topic's versions were read from the log.
 *
 * Why this is safe, and where it is not:
 * - Redis runs each script alone, so of two writers expecting the same version exactly one
 *   reserves; the other gets the version found (409 at the edge). A reservation is made
 *   before the append and settled after it.
 * - Redis is not the record: a topic the guard does not know (first use, or Redis lost its
 *   data) is first counted on the log (`countOnLog`, one read of the topic), every stream
 *   set if still absent (SET NX), then the topic marked seeded. Keys must not be evicted
 *   (`maxmemory-policy noeviction`, as for every view).
 * - A writer whose append failed leaves its reservation unsettled: the event may still land
 *   (the producer retries past our deadline). Until `settleMs` has passed such a stream
 *   answers conflict; after it, the guard counts the stream on the log again and goes on
 *   from what the log holds. So no write is lost and none is doubled; the price is that a
 *   stream whose append failed refuses conflicting writes for up to `settleMs`.
 * - Not covered: Redis losing its data while an unsettled append is still in flight and a
 *   second writer counting the log before that append lands. Both events would then carry
 *   the same version; the projections keep the first one on the log (see evolveTemplateHead).
 */
export function createRedisStreamVersionGuard(options: RedisStreamVersionGuardOptions): StreamVersionGuard {
  const settleMs = options.settleMs ?? 120_000;
  const redis = connectRedis({
    url: options.url,
    name: `pressroom-stream-versions@${options.keyPrefix}`,
    logger: options.logger ?? silentLogger,
  });
  redis.defineCommand('pressroomReserve', { numberOfKeys: 2, lua: RESERVE });
  redis.defineCommand('pressroomReplace', { numberOfKeys: 1, lua: REPLACE });
  const scripts = redis as unknown as {
    pressroomReserve(key: string, ...args: string[]): Promise<string>;
    pressroomReplace(key: string, ...args: string[]): Promise<number>;
  };
  const keyOf = (topic: string, key: string) => `${options.keyPrefix}stream-version:${topic}:${key}`;
  const seededKey = (topic: string) => `${options.keyPrefix}stream-versions-seeded:${topic}`;
  /** One read of the topic per process at a time, however many writers found it unseeded. */
  const seeding = new Map<string, Promise<Map<string, number>>>();
  const countTopic = (topic: string, countOnLog: () => Promise<Map<string, number>>) => {
    let pending = seeding.get(topic);
    if (!pending) {
      pending = countOnLog().finally(() => seeding.delete(topic));
      seeding.set(topic, pending);
    }
    return pending;
  };
  /**
   * One seeding per topic per process at a time, until the marker is written: a writer that finds
   * the topic unseeded after another's read ended but before its marker landed waits for that
   * seeding instead of reading the log again.
   */
  const seedings = new Map<string, Promise<void>>();
  const seed = (topic: string, countOnLog: () => Promise<Map<string, number>>): Promise<void> => {
    let pending = seedings.get(topic);
    if (!pending) {
      pending = (async () => {
        const counts = await countTopic(topic, countOnLog);
        const batch = redis.pipeline();
        for (const [key, n] of counts) batch.set(keyOf(topic, key), `${n}|-|0`, 'NX');
        batch.set(seededKey(topic), String(Date.now()));
        await guard(batch.exec());
      })().finally(() => seedings.delete(topic));
      seedings.set(topic, pending);
    }
    return pending;
  };

  return {
    async reserve(topic, key, expected, count, countOnLog) {
      const k = keyOf(topic, key);
      const token = randomUUID();
      let recounted = false;
      for (let attempt = 0; attempt < 4; attempt++) {
        const answer = await guard(
          scripts.pressroomReserve(k, seededKey(topic), String(expected), String(expected + count), token, String(Date.now())),
        );
        if (answer === 'OK') return { reserved: true, token };
        if (answer === 'UNSEEDED') {
          await seed(topic, countOnLog);
          continue;
        }
        const [version, held, at] = answer.split('|');
        const unsettled = held !== '-' && Date.now() - Number(at) > settleMs;
        if (unsettled && !recounted) {
          // The append of that reservation failed long enough ago: the log says what came of it.
          recounted = true;
          const onLog = (await countTopic(topic, countOnLog)).get(key) ?? 0;
          await guard(scripts.pressroomReplace(k, answer, `${onLog}|-|0`));
          continue;
        }
        return { reserved: false, actual: Number(version) };
      }
      throw new PressroomError('DEPENDENCY_UNAVAILABLE', `The stream version of ${key} kept changing; gave up.`, { retryable: true });
    },
    async settle(topic, key, token) {
      const k = keyOf(topic, key);
      const current = await guard(redis.get(k));
      const parts = current?.split('|');
      if (current && parts?.[1] === token) await guard(scripts.pressroomReplace(k, current, `${parts[0]}|-|0`));
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}
