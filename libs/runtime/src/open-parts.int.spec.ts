import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '@pressroom/core';
import { PrivateRedis } from '../../../test/support/private-redis.ts';
import { s3Credentials } from '../../../test/support/s3.ts';
import { loadConfig } from './config.ts';
import { openParts, openRuntime } from './runtime.ts';

/**
 * Each app opens only the parts its Deps name, so its /readyz checks only what it uses. Given a
 * Redis that refuses subscriptions (an ACL), the status channel the render worker never reads
 * cannot make it unready, while a process that waits on statuses (the ingress) is unready.
 */
describe('per-app openers (real Kafka, S3, a private Redis)', () => {
  const redis = new PrivateRedis();
  const prefix = `open-parts-${randomUUID().slice(0, 8)}:`;
  let config: ReturnType<typeof loadConfig>;

  beforeAll(async () => {
    await redis.start();
    await redis.command((r) => r.call('ACL', 'SETUSER', 'default', '-subscribe', '-psubscribe', '-ssubscribe'));
    config = loadConfig({
      PRESSROOM_PROFILE: 'distributed',
      KAFKA_BROKERS: inject('KAFKA_BROKERS'),
      REDIS_URL: redis.url,
      PRESSROOM_REDIS_PREFIX: prefix,
      PRESSROOM_TOPIC_PREFIX: prefix.slice(0, -1),
      S3_ENDPOINT: inject('S3_ENDPOINT'),
      S3_ACCESS_KEY_ID: s3Credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3Credentials.secretAccessKey,
      PRESSROOM_S3_BUCKET: 'pressroom-open-parts',
      PRESSROOM_SECRET_KEY: 'x'.repeat(32),
    });
  }, 60_000);
  afterAll(() => redis.stop());

  const readyz = async (checks: { name: string; check(): Promise<void> }[]) =>
    Object.fromEntries(
      await Promise.all(
        checks.map(
          async (c) =>
            [
              c.name,
              await c.check().then(
                () => 'ok',
                () => 'down',
              ),
            ] as const,
        ),
      ),
    );

  it("the render worker's readiness does not depend on the status channel it never reads", async () => {
    // Given the worker's parts
    const rt = await openParts(config, 'render-worker', ['log', 'view', 'storage', 'assets', 'payloadCopies'], {
      logger: silentLogger,
      statusWaits: false,
    });
    try {
      // Then it is ready, and opened no Redis connection it does not use
      expect(await readyz(rt.readiness)).toEqual({ kafka: 'ok', redis: 'ok', s3: 'ok' });
      expect('deliveries' in rt || 'idempotency' in rt || 'templates' in rt).toBe(false);
      const clients = await redis.command((r) => r.client('LIST') as Promise<string>);
      const names = [...clients.matchAll(/name=(\S+)/g)].map((m) => m[1]).filter((n) => n?.endsWith(`@${prefix}`));
      // (payload-copies: it takes each request's copied payload instead of reading it back from S3)
      expect(names.sort()).toEqual([
        `pressroom-assets@${prefix}`,
        `pressroom-catalog@${prefix}`,
        `pressroom-payload-copies@${prefix}`,
        `pressroom-status@${prefix}`,
      ]);
    } finally {
      await rt.close();
    }
  }, 60_000);

  it('a process that waits on statuses (every part, as the ingress opens) is not ready without its subscription', async () => {
    const rt = await openRuntime(config, 'ingress', { logger: silentLogger });
    try {
      expect((await readyz(rt.readiness)).redis).toBe('down');
    } finally {
      await rt.close();
    }
  }, 60_000);
});
