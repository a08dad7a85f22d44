import { describe, expect, it } from 'vitest';
import { canonicalJson, decideKeyedAttempt, idempotencyKeyProblem, keysTakenOnLog, type LoggedKeyedRequest } from './idempotency.ts';

describe('canonicalJson: the basis of a key fingerprint', () => {
  it('ignores member order and whitespace at every level', () => {
    const a = JSON.parse('{"b": 1, "a": {"y": [1, {"q": 2, "p": 1}], "x": "s"}}');
    const b = { a: { x: 's', y: [1, { p: 1, q: 2 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });
  it('keeps array order and tells different values apart', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
  });
  it('drops undefined members as JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });
});

describe('idempotencyKeyProblem', () => {
  it('accepts UUIDs and printable ASCII up to 255 characters', () => {
    expect(idempotencyKeyProblem('0b1c9a36-3f0e-4e2a-9d7c-1c2d3e4f5a6b')).toBeUndefined();
    expect(idempotencyKeyProblem('order 42/retry#1')).toBeUndefined();
    expect(idempotencyKeyProblem('k'.repeat(255))).toBeUndefined();
  });
  it('refuses empty, too long, control characters, non-ASCII and padded keys', () => {
    for (const bad of ['', 'k'.repeat(256), 'a\tb', 'ключ', ' padded', 'padded ']) {
      expect(idempotencyKeyProblem(bad)?.field).toBe('Idempotency-Key');
    }
  });
});

describe('decideKeyedAttempt', () => {
  const claim = { requestId: 'r1', fingerprint: 'f1' };
  it('answers the earlier request when the log took it and the request is the same', () => {
    expect(decideKeyedAttempt({ ...claim, state: 'accepted' }, 'f1')).toEqual({ kind: 'replay', requestId: 'r1' });
  });
  it('waits while the earlier attempt is being taken', () => {
    expect(decideKeyedAttempt({ ...claim, state: 'pending' }, 'f1')).toEqual({ kind: 'wait' });
    // Answered 504 OUTCOME_UNKNOWN, not decided by the log yet: never replayed as accepted.
    expect(decideKeyedAttempt({ ...claim, state: 'undecided' }, 'f1')).toEqual({ kind: 'undecided', requestId: 'r1' });
    expect(decideKeyedAttempt({ ...claim, state: 'undecided' }, 'f2')).toEqual({ kind: 'mismatch' });
  });
  it('refuses the key with another request, pending or accepted', () => {
    expect(decideKeyedAttempt({ ...claim, state: 'accepted' }, 'f2')).toEqual({ kind: 'mismatch' });
    expect(decideKeyedAttempt({ ...claim, state: 'pending' }, 'f2')).toEqual({ kind: 'mismatch' });
  });
});

describe('keysTakenOnLog: the Idempotency-Keys rebuilt from the log', () => {
  const HOUR = 3600_000;
  const t0 = Date.parse('2026-11-22T10:00:00.000Z');
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const req = (requestId: string, over: Partial<LoggedKeyedRequest> = {}): LoggedKeyedRequest => ({
    tenantId: 't1',
    requestId,
    idempotencyKey: 'k1',
    fingerprint: 'a'.repeat(64),
    occurredAt: at(0),
    acceptBy: at(5_000),
    writtenAtMs: t0 + 10,
    ...over,
  });
  const opts = { nowMs: t0 + HOUR, ttlMs: 24 * HOUR, skewMs: 2_000 };

  it('remembers a taken request with its fingerprint until its window ends', () => {
    expect(keysTakenOnLog([req('r1')], new Set(), opts)).toEqual([
      { tenantId: 't1', key: 'k1', requestId: 'r1', fingerprint: 'a'.repeat(64), expiresAtMs: t0 + 24 * HOUR },
    ]);
  });

  it('forgets a request whose window has passed', () => {
    expect(keysTakenOnLog([req('r1')], new Set(), { ...opts, nowMs: t0 + 24 * HOUR })).toEqual([]);
  });

  it('skips a withdrawn request (answered 503): its accepted retry holds the key', () => {
    const refused = req('r1');
    const retry = req('r2', { occurredAt: at(6_000), acceptBy: at(11_000), writtenAtMs: t0 + 6_010 });
    expect(keysTakenOnLog([refused, retry], new Set(['r1']), opts).map((k) => k.requestId)).toEqual(['r2']);
  });

  it('skips a request the log wrote after its acceptBy (the worker withdraws it), even before the withdrawal is read', () => {
    const late = req('r1', { writtenAtMs: t0 + 5_000 + 2_001 });
    expect(keysTakenOnLog([late], new Set(), opts)).toEqual([]);
    expect(keysTakenOnLog([req('r1', { writtenAtMs: t0 + 7_000 })], new Set(), opts)).toHaveLength(1);
  });

  it('keeps the earliest taken request of a key, whatever the reading order (topics are read one after another)', () => {
    const first = req('r1', { occurredAt: at(0) });
    const second = req('r2', { occurredAt: at(1_000), writtenAtMs: t0 + 1_010, acceptBy: at(6_000) });
    expect(keysTakenOnLog([second, first], new Set(), opts).map((k) => k.requestId)).toEqual(['r1']);
  });

  it('keeps keys apart per tenant and per key', () => {
    const keys = keysTakenOnLog([req('r1'), req('r2', { tenantId: 't2' }), req('r3', { idempotencyKey: 'k2' })], new Set(), opts);
    expect(keys.map((k) => [k.tenantId, k.key, k.requestId]).sort()).toEqual([
      ['t1', 'k1', 'r1'],
      ['t1', 'k2', 'r3'],
      ['t2', 'k1', 'r2'],
    ]);
  });

  it('gives a request written before fingerprints were recorded an empty one, so another body is refused', () => {
    const [k] = keysTakenOnLog([req('r1', { fingerprint: undefined })], new Set(), opts);
    expect(k?.fingerprint).toBe('');
    expect(decideKeyedAttempt({ requestId: 'r1', fingerprint: k!.fingerprint, state: 'accepted' }, 'b'.repeat(64))).toEqual({
      kind: 'mismatch',
    });
  });
});
