import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { silentLogger, systemClock, type RateLimiter } from '@pressroom/core';
import { createMetrics } from '@pressroom/observability';
import { createRedisQuotas } from '@pressroom/redis';
import { errorMapper } from './error-mapper.ts';
import { rateLimit } from './rate-limit.ts';

const plan = {
  requestsPerSecond: 0.01,
  burst: 2,
  concurrentRenders: 1,
  batchMaxItems: 20,
  pngMaxPixels: 1,
  pngMaxPages: 1,
  retention: 'forever',
};
const servers: Server[] = [];
const closers: (() => Promise<void>)[] = [];

/** The rate limit as the ingress mounts it (after authentication), in front of a route answering 200. */
async function serve(rateLimiter: RateLimiter) {
  const metrics = createMetrics();
  const app = new Koa();
  app.use(errorMapper(silentLogger));
  app.use(async (ctx, next) => {
    ctx.state.tenant = { tenantId: 't1', name: 't1', plan: 'standard', createdAt: '' };
    ctx.state.keyHash = 'key-hash';
    await next();
  });
  app.use(rateLimit({ rateLimiter, plans: { standard: plan }, clock: systemClock, metrics, logger: silentLogger }));
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res)).listen(0);
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { get: () => fetch(url), metrics };
}

afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  for (const s of servers) s.close();
});

describe('ingress rate limit on Redis', () => {
  it('answers 429 RATE_LIMITED with Retry-After and the RateLimit fields past the burst', async () => {
    const quotas = createRedisQuotas({ url: inject('REDIS_URL'), keyPrefix: `test:${randomUUID()}:` });
    closers.push(() => quotas.close());
    const { get } = await serve(quotas.rateLimiter);
    const answers = [await get(), await get(), await get()];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(answers.map((r) => r.headers.get('ratelimit'))).toEqual(['"per-key";r=1;t=100', '"per-key";r=0;t=200', '"per-key";r=0;t=200']);
    expect(answers[2]!.headers.get('retry-after')).toBe('100');
    expect(((await answers[2]!.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
  });

  it('fails open: with Redis unreachable a valid request is answered 200 (no RateLimit fields), and the fault is counted', async () => {
    const quotas = createRedisQuotas({ url: 'redis://127.0.0.1:1', keyPrefix: 'test:' });
    closers.push(() => quotas.close());
    const { get, metrics } = await serve(quotas.rateLimiter);
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toBeNull();
    expect((await metrics.quotaStoreFailuresTotal.get()).values).toEqual([
      expect.objectContaining({ labels: { check: 'rate' }, value: 1 }),
    ]);
  });
});
