import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createEventFactory,
  createFileEventLog,
  selfRebuildingIdempotencyKeys,
  systemClock,
  topicNames,
  uuidV7Ids,
  type EventLog,
  type IdempotencyKeys,
} from '@pressroom/core';
import { decideKeyedAttempt } from '@pressroom/domain';
import { createRedisIdempotencyKeys } from './redis-idempotency-keys.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');
const DAY = 24 * 3600_000;
const FP = 'a'.repeat(64);
const TAKEN = randomUUID();
const REFUSED = randomUUID();

/**
 * Issue 8: the Idempotency-Keys are a view of the log. A Redis that lost them (FLUSHALL, a
 * restart without persistence; here: the test's own key prefix unlinked) is rebuilt from the
 * RenderRequested events before the next claim, by every ingress process at once, and a claim
 * still has one winner.
 */
describe('Idempotency-Keys in Redis, rebuilt from the log', () => {
  const topics = topicNames(`idem-${randomUUID().slice(0, 8)}`);
  const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
  const keyPrefix = `test:${randomUUID()}:`;
  let dir: string;
  let log: EventLog;
  const stores: IdempotencyKeys[] = [];
  const admin = new Redis(url);

  /** Another ingress process: its own Redis connection, the same log. */
  const ingress = () => {
    const store = selfRebuildingIdempotencyKeys(createRedisIdempotencyKeys({ url, keyPrefix }), {
      log,
      topics,
      clock: systemClock,
      ttlMs: DAY,
    });
    stores.push(store);
    return store;
  };
  const requested = (requestId: string, key: string, fingerprint = FP) => {
    const now = Date.now();
    return event(
      'RenderRequested',
      { requestId, tenantId: 't1' },
      {
        mode: 'async',
        source: { kind: 'html', html: '<p>x</p>' },
        output: 'pdf',
        storage: { kind: 'default' },
        acceptBy: new Date(now + 5_000).toISOString(),
        idempotencyKey: key,
        idempotencyFingerprint: fingerprint,
      },
    );
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pressroom-idem-'));
    log = await createFileEventLog({ dir });
    // On the log: a taken request with key "taken"; a request with key "refused" that the ingress withdrew (503).
    await log.append(topics.requestedAsync, [requested(TAKEN, 'taken')]);
    await log.append(topics.requestedAsync, [requested(REFUSED, 'refused')]);
    await log.append(topics.completed, [
      event('RenderWithdrawn', { requestId: REFUSED, tenantId: 't1' }, { mode: 'async', reason: 'NOT_ACCEPTED', by: 'test' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await unlinkByPrefix(admin, keyPrefix);
    await admin.quit();
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a taken key with its request, to several processes rebuilding at once, and frees a withdrawn one for one winner', async () => {
    // Given an empty Redis (nothing under the prefix) and two ingress processes
    const [a, b] = [ingress(), ingress()];
    // When both claim the logged keys at the same moment
    const attempt = () => ({ requestId: randomUUID(), fingerprint: FP });
    const [ta, tb, ra, rb] = await Promise.all([
      a.claim('t1', 'taken', attempt(), 10_000),
      b.claim('t1', 'taken', attempt(), 10_000),
      a.claim('t1', 'refused', attempt(), 10_000),
      b.claim('t1', 'refused', attempt(), 10_000),
    ]);
    // Then the taken key answers the logged request in both (a replay, not a second render)
    for (const r of [ta, tb]) {
      expect(r).toEqual({ won: false, existing: { requestId: TAKEN, fingerprint: FP, state: 'accepted' } });
      if (!r.won) expect(decideKeyedAttempt(r.existing, FP)).toEqual({ kind: 'replay', requestId: TAKEN });
    }
    // ... the withdrawn request's key is free again: exactly one of the two attempts takes it
    expect([ra, rb].filter((r) => r.won)).toHaveLength(1);
    // ... and another body with the taken key is refused (422)
    const other = await a.claim('t1', 'taken', { requestId: randomUUID(), fingerprint: 'b'.repeat(64) }, 10_000);
    expect(other.won).toBe(false);
    if (!other.won) expect(decideKeyedAttempt(other.existing, 'b'.repeat(64))).toEqual({ kind: 'mismatch' });
  });

  it('rebuilds again after Redis lost everything a second time (the marker goes with the data)', async () => {
    const a = ingress();
    expect(await a.isBuilt()).toBe(true);
    await unlinkByPrefix(admin, keyPrefix);
    expect(await a.isBuilt()).toBe(false);
    const r = await a.claim('t1', 'taken', { requestId: randomUUID(), fingerprint: FP }, 10_000);
    expect(r).toEqual({ won: false, existing: { requestId: TAKEN, fingerprint: FP, state: 'accepted' } });
  });
});
