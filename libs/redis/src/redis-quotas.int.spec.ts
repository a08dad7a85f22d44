import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRedisQuotas } from './redis-quotas.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');
const keyPrefix = `test:${randomUUID()}:`;
// Two instances, two connections: two ingress processes sharing one Redis.
const a = createRedisQuotas({ url, keyPrefix });
const b = createRedisQuotas({ url, keyPrefix });

afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  const admin = new Redis(url);
  await unlinkByPrefix(admin, keyPrefix);
  await admin.quit();
});

describe('redis quotas', () => {
  it('one token bucket per key across processes: concurrent takes never spend a token twice', async () => {
    const policy = { requestsPerSecond: 0.01, burst: 10 };
    const takes = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).rateLimiter.take('key-1', policy, Date.now())));
    expect(takes.filter((d) => d.allowed)).toHaveLength(10);
    expect(
      takes
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((x, y) => x - y),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const refused = takes.find((d) => !d.allowed)!;
    expect(refused).toMatchObject({ remaining: 0, retryAfterSeconds: 100 });
    // another key has its own bucket
    expect((await a.rateLimiter.take('key-2', policy, Date.now())).remaining).toBe(9);
  });

  it('in-flight leases per tenant across processes: the cap holds, a release frees a place', async () => {
    const reserve = (p: typeof a, id: string) => p.inFlight.reserve('tenant-1', [id], 3, 60_000, Date.now());
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => reserve(i % 2 ? a : b, `r${i}`)));
    expect(answers.filter((r) => r.admitted)).toHaveLength(3);
    const held = answers.flatMap((r, i) => (r.admitted ? [`r${i}`] : []));
    expect((await reserve(a, 'late')).admitted).toBe(false);
    await b.inFlight.release('tenant-1', [held[0]!]);
    expect((await reserve(a, 'late')).admitted).toBe(true);
    // another tenant is counted apart
    expect((await a.inFlight.reserve('tenant-2', ['x'], 1, 60_000, Date.now())).admitted).toBe(true);
  });

  it('a lease whose outcome is never seen expires: the count heals itself', async () => {
    expect((await a.inFlight.reserve('tenant-3', ['lost'], 1, 1000, Date.now())).admitted).toBe(true);
    expect((await a.inFlight.reserve('tenant-3', ['next'], 1, 1000, Date.now())).admitted).toBe(false);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await a.inFlight.reserve('tenant-3', ['next'], 1, 1000, Date.now())).admitted).toBe(true);
  });

  it('an unreachable Redis is the port error DEPENDENCY_UNAVAILABLE (what the ingress lets through)', async () => {
    const down = createRedisQuotas({ url: 'redis://127.0.0.1:1', keyPrefix });
    await expect(down.rateLimiter.take('k', { requestsPerSecond: 1, burst: 1 }, Date.now())).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
    await down.close();
  });
});
