import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRedisStreamVersionGuard } from './redis-stream-version-guard.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');
const keyPrefix = `test:${randomUUID()}:`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
afterAll(async () => {
  const admin = new Redis(url);
  await unlinkByPrefix(admin, keyPrefix);
  await admin.quit();
});

/** The log as the guard's `countOnLog` sees it: events per key. */
const logWith = (counts: Record<string, number>) => async () => new Map(Object.entries(counts));

describe('Redis stream version guard (failure modes of a conditional append on Kafka)', () => {
  it('seeds a topic from the log once, then reserves each version for one writer only', async () => {
    const guard = createRedisStreamVersionGuard({ url, keyPrefix });
    try {
      let reads = 0;
      const countOnLog = async () => {
        reads += 1;
        return new Map([['k', 2]]);
      };
      const outcomes = await Promise.all([1, 2, 3].map(() => guard.reserve('t1', 'k', 2, 1, countOnLog)));
      expect(outcomes.filter((o) => o.reserved)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.reserved)).toEqual([
        { reserved: false, actual: 3 },
        { reserved: false, actual: 3 },
      ]);
      // A new stream of a seeded topic starts at 0 without reading the log again
      expect(await guard.reserve('t1', 'new', 0, 1, countOnLog)).toMatchObject({ reserved: true });
      expect(reads).toBe(1);
    } finally {
      await guard.close();
    }
  });

  it('a reservation whose append failed blocks its stream until the settle window passed, then the log decides', async () => {
    const guard = createRedisStreamVersionGuard({ url, keyPrefix, settleMs: 200 });
    try {
      // Given a reservation that was never settled (its append timed out)
      expect(await guard.reserve('t2', 'k', 0, 1, logWith({}))).toMatchObject({ reserved: true });
      // Then within the window a writer expecting the old version is refused: the append may still land
      expect(await guard.reserve('t2', 'k', 0, 1, logWith({}))).toEqual({ reserved: false, actual: 1 });
      await pause(300);
      // After it, the log says the append never landed: the stream is at 0 again and the writer goes on
      expect(await guard.reserve('t2', 'k', 0, 1, logWith({}))).toMatchObject({ reserved: true });
      // And when the late append did land, the log says so: a writer expecting 0 is refused
      await pause(300);
      expect(await guard.reserve('t2', 'k', 0, 1, logWith({ k: 1 }))).toEqual({ reserved: false, actual: 1 });
    } finally {
      await guard.close();
    }
  });

  it('a settled reservation is final: no recount, however old', async () => {
    const guard = createRedisStreamVersionGuard({ url, keyPrefix, settleMs: 50 });
    try {
      const r = await guard.reserve('t3', 'k', 0, 2, logWith({}));
      if (!r.reserved) throw new Error('not reserved');
      await guard.settle('t3', 'k', r.token);
      await pause(100);
      let recounted = false;
      const outcome = await guard.reserve('t3', 'k', 0, 1, async () => {
        recounted = true;
        return new Map();
      });
      expect(outcome).toEqual({ reserved: false, actual: 2 });
      expect(recounted).toBe(false);
    } finally {
      await guard.close();
    }
  });
});
