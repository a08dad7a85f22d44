import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IdempotencyKeys } from '@pressroom/core';
import { spacesPerTest } from './contract-support.ts';

/**
 * One isolated namespace owned by one test. Every `open()` shares the same data (Redis: a new
 * instance with its own connection, as another ingress process would have; memory: the same one).
 */
export interface IdempotencyKeysSpace {
  open(): Promise<IdempotencyKeys>;
  dispose(): Promise<void>;
}

const DAY = 24 * 3600_000;
const attempt = (fingerprint = 'fp-1') => ({ requestId: randomUUID(), fingerprint });

/** The IdempotencyKeys guarantees, run against every adapter. */
export function idempotencyKeysContract(name: string, factory: { createSpace(): Promise<IdempotencyKeysSpace> }): void {
  describe(`IdempotencyKeys contract: ${name}`, () => {
    const space = spacesPerTest(() => factory.createSpace());

    it('lets the first attempt take a free key and shows it, pending, to a second process', async () => {
      const s = await space();
      const [a, b] = [await s.open(), await s.open()];
      const first = attempt();
      expect(await a.claim('t1', 'key-1', first, DAY)).toEqual({ won: true });
      expect(await b.claim('t1', 'key-1', attempt('fp-2'), DAY)).toEqual({ won: false, existing: { ...first, state: 'pending' } });
    });

    it('gives a key to exactly one of many concurrent attempts', async () => {
      const s = await space();
      const stores = await Promise.all(Array.from({ length: 8 }, () => s.open()));
      const attempts = stores.map(() => attempt());
      const results = await Promise.all(stores.map((k, i) => k.claim('t1', 'race', attempts[i]!, DAY)));
      const winners = results.map((r, i) => (r.won ? i : -1)).filter((i) => i >= 0);
      expect(winners).toHaveLength(1);
      const winner = attempts[winners[0]!]!;
      for (const r of results) if (!r.won) expect(r.existing.requestId).toBe(winner.requestId);
    });

    it('accepts the holder’s claim only, and then answers it to every later attempt', async () => {
      const s = await space();
      const [a, b] = [await s.open(), await s.open()];
      const first = attempt();
      await a.claim('t1', 'key-2', first, DAY);
      expect(await b.accept('t1', 'key-2', randomUUID(), DAY)).toBe(false);
      expect(await b.get('t1', 'key-2')).toEqual({ ...first, state: 'pending' });
      expect(await a.accept('t1', 'key-2', first.requestId, DAY)).toBe(true);
      expect(await b.claim('t1', 'key-2', attempt(), DAY)).toEqual({ won: false, existing: { ...first, state: 'accepted' } });
    });

    it('holds a key answered 504 OUTCOME_UNKNOWN as undecided, for every store, until its holder accepts or releases it', async () => {
      const s = await space();
      const [a, b] = [await s.open(), await s.open()];
      const first = attempt();
      await a.claim('t1', 'key-u', first, DAY);
      expect(await a.accept('t1', 'key-u', first.requestId, DAY, first.fingerprint, 'undecided')).toBe(true);
      expect(await b.claim('t1', 'key-u', attempt(), DAY)).toEqual({ won: false, existing: { ...first, state: 'undecided' } });
      expect(await b.accept('t1', 'key-u', first.requestId, DAY, first.fingerprint)).toBe(true);
      expect(await a.get('t1', 'key-u')).toEqual({ ...first, state: 'accepted' });
    });

    it('frees a key on release by its holder only', async () => {
      const s = await space();
      const [a, b] = [await s.open(), await s.open()];
      const first = attempt();
      await a.claim('t1', 'key-3', first, DAY);
      await b.release('t1', 'key-3', randomUUID());
      expect((await b.get('t1', 'key-3'))?.requestId).toBe(first.requestId);
      await b.release('t1', 'key-3', first.requestId);
      expect(await a.get('t1', 'key-3')).toBeUndefined();
      expect(await b.claim('t1', 'key-3', attempt(), DAY)).toEqual({ won: true });
    });

    it('keeps tenants apart: the same key of another tenant is another key', async () => {
      const s = await space();
      const a = await s.open();
      await a.claim('t1', 'shared', attempt(), DAY);
      expect(await a.claim('t2', 'shared', attempt(), DAY)).toEqual({ won: true });
    });

    it('frees a pending claim whose holder never came back once its time is up', async () => {
      const s = await space();
      const a = await s.open();
      await a.claim('t1', 'key-4', attempt(), 150);
      await new Promise((r) => setTimeout(r, 400));
      expect(await a.get('t1', 'key-4')).toBeUndefined();
      expect(await a.claim('t1', 'key-4', attempt(), DAY)).toEqual({ won: true });
    });

    it('remembers a key replayed from the log as accepted, but never over a claim it holds already', async () => {
      const s = await space();
      const [a, b] = [await s.open(), await s.open()];
      const logged = attempt('fp-log');
      await a.remember('t1', 'key-5', logged, DAY);
      expect(await b.claim('t1', 'key-5', attempt(), DAY)).toEqual({ won: false, existing: { ...logged, state: 'accepted' } });
      const live = attempt('fp-live');
      await a.claim('t1', 'key-6', live, DAY);
      await b.remember('t1', 'key-6', attempt('fp-log'), DAY);
      expect(await a.get('t1', 'key-6')).toEqual({ ...live, state: 'pending' });
    });

    it('recreates a claim the store lost while its attempt was appended as accepted, with the attempt’s fingerprint', async () => {
      const s = await space();
      const a = await s.open();
      const lost = attempt('fp-lost');
      expect(await a.accept('t1', 'key-7', lost.requestId, DAY, lost.fingerprint)).toBe(true);
      expect(await a.get('t1', 'key-7')).toEqual({ ...lost, state: 'accepted' });
    });

    it('is not built until marked, and the mark is shared by every process', async () => {
      const s = await space();
      const [a, b] = [await s.open(), await s.open()];
      expect(await a.isBuilt()).toBe(false);
      await b.markBuilt();
      expect(await a.isBuilt()).toBe(true);
    });

    it('takes any key the caller sends (length, characters) as itself', async () => {
      const s = await space();
      const a = await s.open();
      const odd = `ключ:*?[]{}\u0000 ${'x'.repeat(300)}`;
      await a.claim('t1', odd, attempt(), DAY);
      expect(await a.claim('t1', `${odd}y`, attempt(), DAY)).toEqual({ won: true });
      expect((await a.claim('t1', odd, attempt(), DAY)).won).toBe(false);
    });
  });
}
