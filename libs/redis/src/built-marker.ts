import { randomUUID } from 'node:crypto';
import type { BuiltMarker } from '@pressroom/core';
import type { Redis } from 'ioredis';

/**
 * Sets a marker only if the note its replay left at the start is still there, and removes the
 * note, in one step. 1 marked, 0 the note is gone (and the data written since with it).
 *   KEYS[1] the note, KEYS[2] the marker; ARGV[1] the marker's value
 */
const MARK_IF_NOTED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return 1
`;

/** How long a replay's note outlives a replay that never ended (its process died). */
const NOTE_TTL_MS = 24 * 3600_000;

type Guard = <T>(command: Promise<T>) => Promise<T>;

/**
 * A view's built marker at `markerKey` (see BuiltMarker): set when a replay of the log ends, gone
 * with the data. Redis can lose the data while a replay runs (a FLUSHALL, a restart without
 * persistence): the replay notes its start beside the data (`<markerKey>:replay:<id>`, same
 * prefix, so whatever removes the data removes the note), and the marker is set only if the note
 * is still there.
 */
export function redisBuiltMarker(redis: Redis, markerKey: string, guard: Guard): Required<BuiltMarker> {
  const noteKey = (note: string) => `${markerKey}:replay:${note}`;
  return {
    isBuilt: async () => (await guard(redis.exists(markerKey))) === 1,
    markBuilt: async () => {
      await guard(redis.set(markerKey, new Date().toISOString()));
    },
    startBuild: async () => {
      const note = randomUUID();
      await guard(redis.set(noteKey(note), new Date().toISOString(), 'PX', NOTE_TTL_MS));
      return note;
    },
    markBuiltAfter: async (note) =>
      (await guard(redis.eval(MARK_IF_NOTED, 2, noteKey(note), markerKey, new Date().toISOString()) as Promise<number>)) === 1,
  };
}
