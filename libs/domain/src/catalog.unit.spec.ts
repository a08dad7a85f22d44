import { describe, expect, it } from 'vitest';
import type { CatalogEvent } from '@pressroom/schemas';
import { PressroomError } from './errors.ts';
import { decideCatalog, emptyCatalogState, evolveCatalogState, type CatalogCommand } from './catalog.ts';

const tenantId = 'acme';
const meta = (n: number) => ({ eventId: `e${n}`, occurredAt: `2026-01-01T00:00:0${n}.000Z` });
const env = (n: number) => ({ ...meta(n), version: 1 as const, tenantId, sequence: n });
const created: CatalogEvent = { ...env(1), type: 'TenantCreated', data: { name: 'Acme', plan: 'high' } };
const keyIssued: CatalogEvent = { ...env(2), type: 'ApiKeyIssued', data: { keyHash: 'a'.repeat(64), label: 'ci' } };
const secretCreated: CatalogEvent = { ...env(3), type: 'WebhookSecretCreated', data: { sealedSecret: 'sealed-1' } };

/** given events → when command → then the decision (events + expected version) or an error. */
function given(...events: CatalogEvent[]) {
  const state = events.reduce(evolveCatalogState, emptyCatalogState);
  return { when: (command: CatalogCommand) => decideCatalog(command, state, meta(9)) };
}
const codeOf = (d: unknown) => (d instanceof PressroomError ? d.code : 'decided');
const then = (n: number) => ({ ...meta(9), version: 1, tenantId, sequence: n });

describe('decideCatalog', () => {
  it('creates a tenant on an empty stream, once', () => {
    expect(given().when({ type: 'CreateTenant', tenantId, name: 'Acme', plan: 'high' })).toEqual({
      expectedVersion: 0,
      events: [{ ...then(1), type: 'TenantCreated', data: { name: 'Acme', plan: 'high' } }],
    });
    expect(codeOf(given(created).when({ type: 'CreateTenant', tenantId, name: 'Again', plan: 'standard' }))).toBe('CONFLICT');
  });

  it('needs the tenant for every other command (NOT_FOUND)', () => {
    const commands: CatalogCommand[] = [
      { type: 'IssueApiKey', tenantId, keyHash: 'b'.repeat(64), label: 'x' },
      { type: 'CreateWebhookSecret', tenantId, sealedSecret: 's' },
      { type: 'RotateWebhookSecret', tenantId, sealedSecret: 's', previousExpiresAt: meta(5).occurredAt },
    ];
    for (const c of commands) expect(codeOf(given().when(c))).toBe('NOT_FOUND');
  });

  it('issues a new key at the next sequence, and re-issuing a known key decides nothing', () => {
    expect(given(created).when({ type: 'IssueApiKey', tenantId, keyHash: 'a'.repeat(64), label: 'ci' })).toEqual({
      expectedVersion: 1,
      events: [{ ...then(2), type: 'ApiKeyIssued', data: { keyHash: 'a'.repeat(64), label: 'ci' } }],
    });
    expect(given(created, keyIssued).when({ type: 'IssueApiKey', tenantId, keyHash: 'a'.repeat(64), label: 'ci' })).toEqual({
      expectedVersion: 2,
      events: [],
    });
  });

  it('creates the first webhook secret once; later creations decide nothing', () => {
    expect(given(created, keyIssued).when({ type: 'CreateWebhookSecret', tenantId, sealedSecret: 'sealed-1' })).toEqual({
      expectedVersion: 2,
      events: [{ ...then(3), type: 'WebhookSecretCreated', data: { sealedSecret: 'sealed-1' } }],
    });
    expect(given(created, keyIssued, secretCreated).when({ type: 'CreateWebhookSecret', tenantId, sealedSecret: 'other' })).toEqual({
      expectedVersion: 3,
      events: [],
    });
  });

  it('rotates the current secret, naming the one it replaces and until when that one still signs', () => {
    const expiresAt = meta(8).occurredAt;
    expect(
      given(created, keyIssued, secretCreated).when({
        type: 'RotateWebhookSecret',
        tenantId,
        sealedSecret: 'sealed-2',
        previousExpiresAt: expiresAt,
      }),
    ).toEqual({
      expectedVersion: 3,
      events: [
        {
          ...then(4),
          type: 'WebhookSecretRotated',
          data: { sealedSecret: 'sealed-2', previousSealedSecret: 'sealed-1', previousExpiresAt: expiresAt },
        },
      ],
    });
  });

  it('registers an S3 connection (a new one or a replacement) at the next sequence', () => {
    const connection = { connectionId: 'main', bucket: 'b', region: 'r', accessKeyId: 'k', sealedSecretAccessKey: 'v1.x' };
    expect(given(created).when({ type: 'RegisterS3Connection', tenantId, connection })).toEqual({
      expectedVersion: 1,
      events: [{ ...then(2), type: 'S3ConnectionRegistered', data: connection }],
    });
  });

  it('two rotations decided on the same state expect the same version: only one append can pass', () => {
    const state = [created, secretCreated].reduce(evolveCatalogState, emptyCatalogState);
    const cmd = (s: string): CatalogCommand => ({
      type: 'RotateWebhookSecret',
      tenantId,
      sealedSecret: s,
      previousExpiresAt: meta(8).occurredAt,
    });
    const a = decideCatalog(cmd('x'), state, meta(4));
    const b = decideCatalog(cmd('y'), state, meta(5));
    expect([a, b].map((d) => (d as { expectedVersion: number }).expectedVersion)).toEqual([3, 3]);
  });
});
