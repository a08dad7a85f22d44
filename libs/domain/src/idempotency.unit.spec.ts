import { describe, expect, it } from 'vitest';
import { canonicalJson, decideKeyedAttempt, idempotencyKeyProblem } from './idempotency.ts';

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
  });
  it('refuses the key with another request, pending or accepted', () => {
    expect(decideKeyedAttempt({ ...claim, state: 'accepted' }, 'f2')).toEqual({ kind: 'mismatch' });
    expect(decideKeyedAttempt({ ...claim, state: 'pending' }, 'f2')).toEqual({ kind: 'mismatch' });
  });
});
