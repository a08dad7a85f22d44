import { describe, expect, it } from 'vitest';
import { admitsConcurrent, asyncLaneOpen, pngPageCount, pngPagesRefusal, rateLimitHeaders, takeToken, type BucketState } from './quotas.ts';

const policy = { requestsPerSecond: 2, burst: 3 };

describe('takeToken', () => {
  it('starts full: burst requests pass, the next is refused with a Retry-After', () => {
    let state: BucketState | undefined;
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const d = takeToken(state, policy, 1000);
      expect(d.allowed).toBe(true);
      remaining.push(d.remaining);
      state = d.next;
    }
    expect(remaining).toEqual([2, 1, 0]);
    const refused = takeToken(state, policy, 1000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(refused.next.tokens).toBe(0); // a refusal takes nothing
  });

  it('refills at the rate, never above the burst', () => {
    const empty = { tokens: 0, atMs: 0 };
    expect(takeToken(empty, policy, 499).allowed).toBe(false);
    expect(takeToken(empty, policy, 500)).toMatchObject({ allowed: true, remaining: 0 });
    expect(takeToken(empty, policy, 60_000)).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 1 });
  });

  it('tells how long until one request passes and until the bucket is full', () => {
    const slow = { requestsPerSecond: 0.1, burst: 2 };
    const d = takeToken({ tokens: 0, atMs: 0 }, slow, 0);
    expect(d).toMatchObject({ allowed: false, retryAfterSeconds: 10, resetSeconds: 20 });
  });

  it('a clock behind the stored one refills nothing and does not move the state back', () => {
    const d = takeToken({ tokens: 0.5, atMs: 10_000 }, policy, 5_000);
    expect(d.allowed).toBe(false);
    expect(d.next).toEqual({ tokens: 0.5, atMs: 10_000 });
  });
});

describe('rateLimitHeaders', () => {
  it('names the policy (quota and window) and what is left', () => {
    expect(rateLimitHeaders({ requestsPerSecond: 10, burst: 20 }, { remaining: 7, resetSeconds: 2 })).toEqual({
      'RateLimit-Policy': '"per-key";q=20;w=2',
      RateLimit: '"per-key";r=7;t=2',
    });
  });
});

describe('admitsConcurrent', () => {
  it('admits up to the cap, counting every render of the request', () => {
    expect(admitsConcurrent(0, 1, 2)).toBe(true);
    expect(admitsConcurrent(1, 1, 2)).toBe(true);
    expect(admitsConcurrent(2, 1, 2)).toBe(false);
    expect(admitsConcurrent(1, 2, 2)).toBe(false);
  });
  it('a request larger than the cap passes alone, never beside others', () => {
    expect(admitsConcurrent(0, 5, 2)).toBe(true);
    expect(admitsConcurrent(1, 5, 2)).toBe(false);
  });
});

describe('asyncLaneOpen', () => {
  it('closes at the configured depth; 0 or an unknown backlog never closes it', () => {
    expect(asyncLaneOpen(9, 10)).toBe(true);
    expect(asyncLaneOpen(10, 10)).toBe(false);
    expect(asyncLaneOpen(10_000, 0)).toBe(true);
    expect(asyncLaneOpen(undefined, 10)).toBe(true);
  });
});

describe('pngPageCount and pngPagesRefusal', () => {
  const A4 = 1123; // px at 96 dpi

  it('counts the sheets a tall PNG stacks: a started sheet counts, a rounding pixel does not', () => {
    expect(pngPageCount(500, A4)).toBe(1);
    expect(pngPageCount(A4, A4)).toBe(1);
    expect(pngPageCount(A4 + 0.6, A4 - 0.4)).toBe(1);
    expect(pngPageCount(A4 + 1, A4)).toBe(2);
    expect(pngPageCount(20 * A4, A4)).toBe(20);
  });

  it("refuses a PNG over the plan's pngMaxPages, naming the rule; none without a cap", () => {
    expect(pngPagesRefusal({ contentHeightPx: 3 * A4, sheetHeightPx: A4, maxPages: 3 })).toBeUndefined();
    expect(pngPagesRefusal({ contentHeightPx: 3 * A4 + 5, sheetHeightPx: A4, maxPages: 3 })).toMatch(/4 pages.*pngMaxPages of 3/);
    expect(pngPagesRefusal({ contentHeightPx: 1e6, sheetHeightPx: A4, maxPages: undefined })).toBeUndefined();
  });
});
