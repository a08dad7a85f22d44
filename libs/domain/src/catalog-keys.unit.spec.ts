import { describe, expect, it } from 'vitest';
import type { CatalogEvent } from '@pressroom/schemas';
import { PressroomError } from './errors.ts';
import { decideCatalog, emptyCatalogState, evolveCatalogState, type CatalogCommand } from './catalog.ts';
import { apiKeyStatus, keyAuthenticates, shouldRecordKeyUse } from './api-keys.ts';
import { planAllows, planForbids } from './plans.ts';

// Issue 11: keys (revocation, rotation with an overlap, scopes), plan changes and connection
// deletion as catalog decisions: given events → when command → then events (or why not).

const tenantId = 'acme';
const meta = (n: number) => ({ eventId: `e${n}`, occurredAt: `2026-01-01T00:00:0${n}.000Z` });
const env = (n: number) => ({ ...meta(n), version: 1 as const, tenantId, sequence: n });
const created: CatalogEvent = { ...env(1), type: 'TenantCreated', data: { name: 'Acme', plan: 'standard' } };
const keyA: CatalogEvent = {
  ...env(2),
  type: 'ApiKeyIssued',
  data: { keyHash: 'a'.repeat(64), label: 'ci', keyId: 'key_a', prefix: 'prs_live_AAAA', scopes: ['render'] },
};
const legacyKey: CatalogEvent = { ...env(3), type: 'ApiKeyIssued', data: { keyHash: 'b'.repeat(64), label: 'old' } };
const revokedA: CatalogEvent = { ...env(4), type: 'ApiKeyRevoked', data: { keyId: 'key_a' } };
const connection: CatalogEvent = {
  ...env(5),
  type: 'S3ConnectionRegistered',
  data: { connectionId: 'archive', bucket: 'b', region: 'r', accessKeyId: 'k', sealedSecretAccessKey: 's' },
};

function given(...events: CatalogEvent[]) {
  const state = events.reduce(evolveCatalogState, emptyCatalogState);
  return { when: (command: CatalogCommand) => decideCatalog(command, state, meta(9)) };
}
const codeOf = (d: unknown) => (d instanceof PressroomError ? d.code : 'decided');
const then = (n: number) => ({ ...meta(9), version: 1, tenantId, sequence: n });
const replacement = { keyId: 'key_new', keyHash: 'c'.repeat(64), prefix: 'prs_live_CCCC' };
const rotate = (keyId: string): CatalogCommand => ({
  type: 'RotateApiKey',
  tenantId,
  keyId,
  replacement,
  expiresAt: '2026-01-02T00:00:00.000Z',
  rotationEventId: 'e10',
});

describe('decideCatalog: keys', () => {
  it('issues a key with its id, prefix and scopes', () => {
    const d = given(created).when({
      type: 'IssueApiKey',
      tenantId,
      keyHash: 'd'.repeat(64),
      label: 'x',
      keyId: 'key_d',
      prefix: 'prs_live_DDDD',
      scopes: ['manage'],
    });
    expect(d).toEqual({
      expectedVersion: 1,
      events: [
        {
          ...then(2),
          type: 'ApiKeyIssued',
          data: { keyHash: 'd'.repeat(64), label: 'x', keyId: 'key_d', prefix: 'prs_live_DDDD', scopes: ['manage'] },
        },
      ],
    });
  });

  it('revokes a key of the tenant; revoking it again decides nothing; an unknown id is NOT_FOUND', () => {
    expect(given(created, keyA).when({ type: 'RevokeApiKey', tenantId, keyId: 'key_a' })).toEqual({
      expectedVersion: 2,
      events: [{ ...then(3), type: 'ApiKeyRevoked', data: { keyId: 'key_a' } }],
    });
    expect(given(created, keyA, revokedA).when({ type: 'RevokeApiKey', tenantId, keyId: 'key_a' })).toEqual({
      expectedVersion: 4,
      events: [],
    });
    expect(codeOf(given(created, keyA).when({ type: 'RevokeApiKey', tenantId, keyId: 'key_elsewhere' }))).toBe('NOT_FOUND');
  });

  it('rotates an active key into a new one with the same label and scopes; the old one expires at the given time', () => {
    expect(given(created, keyA).when(rotate('key_a'))).toEqual({
      expectedVersion: 2,
      events: [
        {
          ...then(3),
          type: 'ApiKeyIssued',
          data: { keyHash: 'c'.repeat(64), label: 'ci', keyId: 'key_new', prefix: 'prs_live_CCCC', scopes: ['render'] },
        },
        {
          ...then(4),
          eventId: 'e10',
          type: 'ApiKeyRotated',
          data: { keyId: 'key_a', replacedBy: 'key_new', expiresAt: '2026-01-02T00:00:00.000Z' },
        },
      ],
    });
  });

  it('a key issued before scopes is rotated with every scope; a revoked or already rotated key cannot be rotated', () => {
    const d = given(created, legacyKey).when(rotate('key_e3'));
    expect(d).toMatchObject({ events: [{ data: { scopes: ['render', 'manage'] } }, { type: 'ApiKeyRotated' }] });
    expect(codeOf(given(created, keyA, revokedA).when(rotate('key_a')))).toBe('CONFLICT');
    const rotated: CatalogEvent = {
      ...env(4),
      type: 'ApiKeyRotated',
      data: { keyId: 'key_a', replacedBy: 'key_x', expiresAt: '2026-01-02T00:00:00.000Z' },
    };
    expect(codeOf(given(created, keyA, rotated).when(rotate('key_a')))).toBe('CONFLICT');
  });
});

describe('decideCatalog: plans and connections', () => {
  it('changes the plan once; the same plan again decides nothing', () => {
    expect(given(created).when({ type: 'ChangePlan', tenantId, plan: 'high' })).toEqual({
      expectedVersion: 1,
      events: [{ ...then(2), type: 'TenantPlanChanged', data: { plan: 'high' } }],
    });
    const changed: CatalogEvent = { ...env(2), type: 'TenantPlanChanged', data: { plan: 'high' } };
    expect(given(created, changed).when({ type: 'ChangePlan', tenantId, plan: 'high' })).toEqual({ expectedVersion: 2, events: [] });
  });

  it('deletes a live connection; an unknown or deleted one is NOT_FOUND', () => {
    expect(given(created, connection).when({ type: 'DeleteS3Connection', tenantId, connectionId: 'archive' })).toEqual({
      expectedVersion: 5,
      events: [{ ...then(6), type: 'S3ConnectionDeleted', data: { connectionId: 'archive' } }],
    });
    const deleted: CatalogEvent = { ...env(6), type: 'S3ConnectionDeleted', data: { connectionId: 'archive' } };
    expect(codeOf(given(created, connection, deleted).when({ type: 'DeleteS3Connection', tenantId, connectionId: 'archive' }))).toBe(
      'NOT_FOUND',
    );
    expect(codeOf(given(created).when({ type: 'DeleteS3Connection', tenantId, connectionId: 'archive' }))).toBe('NOT_FOUND');
  });
});

describe('key and plan rules', () => {
  const now = new Date('2026-01-01T12:00:00.000Z');
  it('a rotated key authenticates until its expiry, a revoked one never', () => {
    expect(apiKeyStatus({}, now)).toBe('active');
    expect(apiKeyStatus({ expiresAt: '2026-01-01T12:00:01.000Z' }, now)).toBe('expiring');
    expect(keyAuthenticates({ expiresAt: '2026-01-01T12:00:01.000Z' }, now)).toBe(true);
    expect(keyAuthenticates({ expiresAt: '2026-01-01T12:00:00.000Z' }, now)).toBe(false);
    expect(keyAuthenticates({ revokedAt: '2026-01-01T11:00:00.000Z' }, now)).toBe(false);
  });

  it('records a key use at most once a minute per process', () => {
    expect(shouldRecordKeyUse(undefined, 1_000)).toBe(true);
    expect(shouldRecordKeyUse(1_000, 60_999)).toBe(false);
    expect(shouldRecordKeyUse(1_000, 61_000)).toBe(true);
  });

  it('custom S3 is on the high plan only, and the refusal names the rule', () => {
    expect(planAllows('high', 'custom-s3')).toBe(true);
    expect(planForbids('high', 'custom-s3')).toBeUndefined();
    expect(planForbids('standard', 'custom-s3')?.code).toBe('PLAN_FORBIDS_CUSTOM_S3');
  });
});
