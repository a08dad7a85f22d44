import { silentLogger, type DocumentCollection, type DocumentKey, type DocumentStore, type Logger, type Versioned } from '@pressroom/core';
import type { Pipeline, Redis } from 'ioredis';
import { redisBuiltMarker } from './built-marker.ts';
import { connectRedis, disconnectRedis } from './connect.ts';
import { redisGuard } from './guard.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

export interface RedisDocumentStoreOptions {
  url: string;
  /** Every key and channel starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  /** Names the errors, e.g. `status view`. */
  name: string;
  /** Names the connection in CLIENT LIST (`pressroom-<connection>@<prefix>`), e.g. `status`. */
  connection: string;
  logger?: Logger;
  /**
   * A connection to use instead of opening one (the store then owns it: `close` ends it), for an
   * adapter that keeps something beside its documents on the same connection (the deliveries'
   * schedule).
   */
  client?: Redis;
}

/**
 * The one compare-and-set of every projected view. Writes `next` only if the document still holds
 * what the caller read (compared on the stored JSON text, which is the version), and publishes in
 * the same atomic step when asked, so exactly one writer announces a change. 1 written, 0 changed.
 *   KEYS[1] key (a plain document) or hash (a group)
 *   ARGV: field ('' = the key itself), expectPresent ('1'|'0'), expected, next,
 *         ttlMs ('0' = none), channel ('' = no publish), message
 */
const COMPARE_AND_SET = `
local current
if ARGV[1] == '' then current = redis.call('GET', KEYS[1]) else current = redis.call('HGET', KEYS[1], ARGV[1]) end
if ARGV[2] == '1' then
  if current ~= ARGV[3] then return 0 end
elseif current then
  return 0
end
if ARGV[1] == '' then
  if ARGV[5] == '0' then redis.call('SET', KEYS[1], ARGV[4]) else redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5]) end
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
  if ARGV[5] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
end
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
return 1
`;

/** A Redis document store: it can lose its data, so it notes the replays that mark it built. */
export type RedisDocumentStore = DocumentStore & Required<Pick<DocumentStore, 'startMarking' | 'markIfNoted'>>;

/**
 * The distributed profile's documents. Layout, under `<prefix><collection name>`: a plain key is
 * a string holding the document's JSON; a group is a hash, one field per id (so `list` is one
 * HVALS). The version of a document is its stored text: nothing but the document is stored, so
 * the layout of the views did not change when they moved onto this port. A marker is a string
 * key holding when it was set.
 */
export function createRedisDocumentStore(options: RedisDocumentStoreOptions): RedisDocumentStore {
  const logger = options.logger ?? silentLogger;
  const guard = redisGuard(options.name);
  const prefix = options.keyPrefix;
  const redis = options.client ?? connectRedis({ url: options.url, name: `pressroom-${options.connection}@${prefix}`, logger });
  redis.defineCommand('pressroomDocumentCas', { numberOfKeys: 1, lua: COMPARE_AND_SET });
  const marker = (name: string) => redisBuiltMarker(redis, prefix + name, guard);
  const cas = (...args: string[]) =>
    (redis as unknown as { pressroomDocumentCas(...args: string[]): Promise<number> }).pressroomDocumentCas(...args);

  return {
    collection<T>(spec: { name: string; ttlMs?: number; channel?: string }): DocumentCollection<T> {
      const base = prefix + spec.name;
      const ttl = String(spec.ttlMs ?? 0);
      const channel = spec.channel ? prefix + spec.channel : '';
      const parse = (raw: string | null): Versioned<T> | undefined =>
        raw === null ? undefined : { doc: JSON.parse(raw) as T, version: raw };
      /** The script's key and arguments; undefined when `next` is what was read (nothing to write). */
      const casArgs = (key: DocumentKey, expected: string | undefined, next: T, notify?: boolean, ttlMs?: number): string[] | undefined => {
        const text = JSON.stringify(next);
        if (text === expected) return undefined;
        const [redisKey, field, id] = typeof key === 'string' ? [base + key, '', key] : [base + key.group, key.id, key.id];
        const announce = notify && channel ? channel : '';
        const lifetime = ttlMs === undefined ? ttl : String(Math.max(0, Math.ceil(ttlMs)));
        return [redisKey, field, expected === undefined ? '0' : '1', expected ?? '', text, lifetime, announce, id];
      };
      const read = (key: DocumentKey) => (typeof key === 'string' ? redis.get(base + key) : redis.hget(base + key.group, key.id));
      return {
        async get(key) {
          return parse(await guard(read(key)));
        },
        async getMany(keys) {
          if (keys.length === 0) return [];
          const pipeline = redis.pipeline();
          for (const key of keys) {
            if (typeof key === 'string') pipeline.get(base + key);
            else pipeline.hget(base + key.group, key.id);
          }
          const results = (await guard(pipeline.exec())) ?? [];
          return results.map(([, raw]) => parse(raw as string | null));
        },
        async list(group) {
          return (await guard(redis.hvals(base + group))).map((raw) => JSON.parse(raw) as T);
        },
        async compareAndSet(key, expected, next, opts) {
          const args = casArgs(key, expected, next, opts?.notify, opts?.ttlMs);
          if (!args) return true; // already so: nothing to write, nothing to announce
          return (await guard(cas(...args))) === 1;
        },
        async compareAndSetMany(writes) {
          const pipeline = redis.pipeline() as unknown as { pressroomDocumentCas(...args: string[]): void; exec: Pipeline['exec'] };
          const sent: number[] = [];
          writes.forEach((w, i) => {
            const args = casArgs(w.key, w.expected, w.next, w.notify, w.ttlMs);
            if (!args) return;
            pipeline.pressroomDocumentCas(...args);
            sent.push(i);
          });
          const out = writes.map(() => true);
          if (sent.length === 0) return out;
          const results = (await guard(pipeline.exec())) ?? [];
          results.forEach(([error, written], j) => {
            if (error) throw error;
            out[sent[j]!] = written === 1;
          });
          return out;
        },
      };
    },
    isMarked: (name) => marker(name).isBuilt(),
    mark: (name) => marker(name).markBuilt(),
    startMarking: (name) => marker(name).startBuild(),
    markIfNoted: (name, note) => marker(name).markBuiltAfter(note),
    async clear(namePrefix) {
      await guard(unlinkByPrefix(redis, prefix + namePrefix));
    },
    async ping() {
      await guard(redis.ping());
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}
