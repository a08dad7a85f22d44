import { PressroomError, evolveStatus, isTerminal } from '@pressroom/domain';
import { silentLogger, type Logger, type StatusView } from '@pressroom/core';
import type { PressroomEvent, StatusViewEntry } from '@pressroom/schemas';
import { connectRedis, disconnectRedis } from './connect.ts';
import { TerminalWaiters } from './terminal-waiters.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

export interface RedisStatusViewOptions {
  url: string;
  /** Every key and the channel start with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
  /**
   * An entry expires this long after its last change (7 days unless told; 0 keeps entries
   * forever). The view can be rebuilt from the log, so expiry only bounds Redis memory.
   */
  retentionSeconds?: number;
  /**
   * Whether this process waits for terminal entries (`waitForTerminal`): only then does the view
   * open its subscriber connection to the status channel, and `ping` check that subscription.
   * Default true. A reader that never waits (the render worker) passes false; its
   * `waitForTerminal` then rejects.
   */
  waits?: boolean;
}

export const DEFAULT_STATUS_RETENTION_SECONDS = 7 * 24 * 3600;

/** Enough for the few writers one render ever has (ingress, projector replicas, a replay). */
const MAX_APPLY_ATTEMPTS = 32;
/** How long `ping` lets a fresh view finish subscribing before calling it not ready. */
const PING_SUBSCRIBE_WAIT_MS = 2000;

/**
 * Writes `next` only if the entry still holds what the caller read (compare-and-set on the
 * stored JSON text), and publishes the requestId in the same atomic step when the write is
 * the one that made the entry terminal. Returns 1 when written, 0 when the entry had changed.
 *   KEYS[1] entry   ARGV: expectPresent ('1'|'0'), expected, next, ttlMs ('0' = none),
 *                         channel, publish ('1'|'0'), requestId
 */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[4] == '0' then
  redis.call('SET', KEYS[1], ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
end
if ARGV[6] == '1' then redis.call('PUBLISH', ARGV[5], ARGV[7]) end
return 1
`;

/**
 * The distributed profile's status view.
 *
 * Layout: `<prefix>status:<requestId>` holds the entry as JSON; `<prefix>status:~built` marks
 * a view rebuilt from the log; `<prefix>status-events` is the channel on which a terminal
 * transition publishes its requestId.
 *
 * Atomicity: `apply` reads the entry, computes the next one with `evolveStatus` (the one rule,
 * kept in TypeScript), and writes it with a Lua compare-and-set that fails if anyone changed
 * the entry meanwhile; then it reads again and retries. That is WATCH/MULTI's optimistic loop
 * without WATCH's catch: WATCH belongs to a connection, and this one connection is shared
 * by every concurrent `apply` of the process. Because the publish happens inside the winning
 * write, exactly one writer announces each terminal transition.
 *
 * Waiting: a waiter registers locally, makes sure the subscription is live, and only then
 * reads the entry, so a transition in between is seen either by the read or by the message.
 */
export function createRedisStatusView(options: RedisStatusViewOptions): StatusView {
  const logger = options.logger ?? silentLogger;
  const retentionMs = String((options.retentionSeconds ?? DEFAULT_STATUS_RETENTION_SECONDS) * 1000);
  const entryPrefix = `${options.keyPrefix}status:`;
  const channel = `${options.keyPrefix}status-events`;
  const keyOf = (requestId: string) => `${entryPrefix}${requestId}`;
  /** Under the entries' prefix (not a request id: those are UUIDs), so `clear` removes it too. */
  const builtKey = `${entryPrefix}~built`;

  const redis = connectRedis({ url: options.url, name: `pressroom-status@${options.keyPrefix}`, logger });
  const waits = options.waits ?? true;
  const subscriber = waits
    ? connectRedis({ url: options.url, name: `pressroom-status-events@${options.keyPrefix}`, logger, subscriber: true })
    : undefined;
  redis.defineCommand('pressroomStatusCas', { numberOfKeys: 1, lua: COMPARE_AND_SET });
  const compareAndSet = (key: string, ...args: string[]) =>
    (redis as unknown as { pressroomStatusCas(key: string, ...args: string[]): Promise<number> }).pressroomStatusCas(key, ...args);

  const read = async (requestId: string): Promise<StatusViewEntry | undefined> => {
    const raw = await redis.get(keyOf(requestId));
    return raw === null ? undefined : (JSON.parse(raw) as StatusViewEntry);
  };
  const waiters = subscriber ? new TerminalWaiters({ subscriber, channel, load: read, logger }) : undefined;
  waiters?.ready.catch(() => undefined); // surfaced by waitForTerminal
  /** Ends each pending wait now, as its timeout would (used by close). */
  const pending = new Map<Promise<unknown>, () => void>();
  let closing = false;

  /** One optimistic read → evolve → compare-and-set loop (see the module comment). */
  const applyWithRetries = async (event: PressroomEvent): Promise<StatusViewEntry | undefined> => {
    const key = keyOf(event.requestId);
    for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
      const raw = await redis.get(key);
      const current = raw === null ? undefined : (JSON.parse(raw) as StatusViewEntry);
      const next = evolveStatus(current, event);
      if (next === undefined) return undefined;
      const text = JSON.stringify(next);
      if (text === raw) return next; // already applied: nothing to write, nothing to announce
      const announce = !isTerminal(current) && isTerminal(next);
      const written = await compareAndSet(
        key,
        raw === null ? '0' : '1',
        raw ?? '',
        text,
        retentionMs,
        channel,
        announce ? '1' : '0',
        event.requestId,
      );
      if (written === 1) return next;
    }
    throw new PressroomError('DEPENDENCY_UNAVAILABLE', `Status entry ${event.requestId} kept changing; gave up applying.`, {
      retryable: true,
    });
  };

  return {
    async apply(event: PressroomEvent) {
      try {
        return await applyWithRetries(event);
      } catch (error) {
        throw unavailable(error);
      }
    },

    async get(requestId) {
      try {
        return await read(requestId);
      } catch (error) {
        throw unavailable(error);
      }
    },

    waitForTerminal(requestId, timeoutMs) {
      if (closing) return Promise.reject(new PressroomError('INTERNAL', 'The status view is closed.'));
      if (!waiters) return Promise.reject(new PressroomError('INTERNAL', 'This status view was opened without waits.'));
      let expire = () => {};
      const waiting = new Promise<StatusViewEntry | undefined>((resolve, reject) => {
        let settled = false;
        const settle = (outcome: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          remove();
          outcome();
        };
        const wake = (entry: StatusViewEntry) => settle(() => resolve(structuredClone(entry)));
        const fail = (error: unknown) => settle(() => reject(unavailable(error)));
        // 1. register, 2. be sure the subscription is live, 3. read: no lost wake-up.
        const remove = waiters.add(requestId, wake);
        expire = () => {
          remove();
          read(requestId).then((entry) => settle(() => resolve(entry)), fail);
        };
        const timer = setTimeout(expire, Math.max(0, timeoutMs));
        waiters.ready
          .then(() => read(requestId))
          .then((entry) => {
            if (entry && isTerminal(entry)) wake(entry);
          }, fail);
      });
      const tracked = waiting.finally(() => pending.delete(tracked));
      pending.set(tracked, expire);
      return waiting;
    },

    async isBuilt() {
      try {
        return (await redis.exists(builtKey)) === 1;
      } catch (error) {
        throw unavailable(error);
      }
    },
    async markBuilt() {
      try {
        await redis.set(builtKey, new Date().toISOString());
      } catch (error) {
        throw unavailable(error);
      }
    },
    async clear() {
      await unlinkByPrefix(redis, entryPrefix);
    },

    async ping() {
      // Ready means both: commands answer, and notifications can arrive.
      try {
        await redis.ping();
        if (!waiters) return;
        await Promise.race([waiters.ready, new Promise((r) => setTimeout(r, PING_SUBSCRIBE_WAIT_MS).unref())]);
      } catch (error) {
        throw unavailable(error);
      }
      if (waiters && !waiters.live) throw unavailable(new Error('not subscribed to the status channel'));
    },

    /** Pending waiters settle with the entry as it stands; then both connections close. */
    async close() {
      if (closing) return;
      closing = true;
      for (const expire of pending.values()) expire();
      await Promise.allSettled(pending.keys());
      await Promise.all([disconnectRedis(redis), subscriber && disconnectRedis(subscriber)]);
    },
  };
}

function unavailable(error: unknown): PressroomError {
  if (error instanceof PressroomError) return error;
  return new PressroomError('DEPENDENCY_UNAVAILABLE', 'The status view (Redis) is unavailable.', { retryable: true, cause: error });
}
