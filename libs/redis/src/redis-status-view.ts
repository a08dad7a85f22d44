import { PressroomError, isTerminal, statusProjection } from '@pressroom/domain';
import {
  STATUS_BUILT_MARKER,
  STATUS_DOCUMENTS,
  documentBuiltMarker,
  project,
  projectMany,
  silentLogger,
  type Logger,
  type StatusView,
} from '@pressroom/core';
import type { PressroomEvent, StatusViewEntry } from '@pressroom/schemas';
import { connectRedis, disconnectRedis } from './connect.ts';
import { createRedisDocumentStore } from './redis-document-store.ts';
import { TerminalWaiters } from './terminal-waiters.ts';

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

/** How long `ping` lets a fresh view finish subscribing before calling it not ready. */
const PING_SUBSCRIBE_WAIT_MS = 2000;

/**
 * The distributed profile's status view: the status projection's documents in a Redis document
 * store (see redis-document-store.ts for the compare-and-set), plus the waiting.
 *
 * Layout: `<prefix>status:<requestId>` holds the entry as JSON; `<prefix>status:~built` marks
 * a view rebuilt from the log; `<prefix>status-events` is the channel on which a terminal
 * transition publishes its requestId.
 *
 * Atomicity: `apply` is the generic projector's optimistic loop (`project`): read, fold with
 * `evolveStatus`, compare-and-set, retry when another writer got there first. The publish
 * happens inside the winning write, so exactly one writer announces each terminal transition.
 *
 * Waiting: a waiter registers locally, makes sure the subscription is live, and only then
 * reads the entry, so a transition in between is seen either by the read or by the message.
 */
export function createRedisStatusView(options: RedisStatusViewOptions): StatusView {
  const logger = options.logger ?? silentLogger;
  const retentionSeconds = options.retentionSeconds ?? DEFAULT_STATUS_RETENTION_SECONDS;
  const store = createRedisDocumentStore({ ...options, name: 'status view', connection: 'status', logger });
  const docs = store.collection<StatusViewEntry>({ ...STATUS_DOCUMENTS, ttlMs: retentionSeconds * 1000 });
  const channel = `${options.keyPrefix}${STATUS_DOCUMENTS.channel}`;

  const waits = options.waits ?? true;
  const subscriber = waits
    ? connectRedis({ url: options.url, name: `pressroom-status-events@${options.keyPrefix}`, logger, subscriber: true })
    : undefined;

  const read = async (requestId: string): Promise<StatusViewEntry | undefined> => (await docs.get(requestId))?.doc;
  const waiters = subscriber ? new TerminalWaiters({ subscriber, channel, load: read, logger }) : undefined;
  waiters?.ready.catch(() => undefined); // surfaced by waitForTerminal
  /** Ends each pending wait now, as its timeout would (used by close). */
  const pending = new Map<Promise<unknown>, () => void>();
  let closing = false;

  return {
    async apply(event: PressroomEvent) {
      try {
        return await project(docs, statusProjection, event);
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

    async applyMany(events) {
      try {
        await projectMany(docs, statusProjection, events);
      } catch (error) {
        throw unavailable(error);
      }
    },

    async getMany(requestIds) {
      try {
        return (await docs.getMany([...requestIds])).map((v) => v?.doc);
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

    ...documentBuiltMarker(store, STATUS_BUILT_MARKER),
    async clear() {
      await store.clear(STATUS_DOCUMENTS.name);
    },

    async ping() {
      // Ready means both: commands answer, and notifications can arrive.
      try {
        await store.ping();
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
      await Promise.all([store.close(), subscriber && disconnectRedis(subscriber)]);
    },
  };
}

function unavailable(error: unknown): PressroomError {
  if (error instanceof PressroomError) return error;
  return new PressroomError('DEPENDENCY_UNAVAILABLE', 'The status view (Redis) is unavailable.', { retryable: true, cause: error });
}
