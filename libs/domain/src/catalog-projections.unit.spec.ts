import { describe, expect, it } from 'vitest';
import type { CatalogEvent } from '@pressroom/schemas';
import * as catalog from './catalog-projections.ts';
import type { Projection } from './projection.ts';

const at = '2030-01-01T00:00:00.000Z';
const envelope = (sequence: number) => ({ eventId: `e-${sequence}`, version: 1 as const, occurredAt: at, tenantId: 'acme', sequence });

/** Given events, folded in order by the projection (the events it does not handle skipped). */
function fold<E, D>(projection: Projection<E, D>, events: unknown[]): D | undefined {
  let doc: D | undefined;
  for (const e of events) if (projection.canHandle(e)) doc = projection.evolve(doc, e);
  return doc;
}

const created: CatalogEvent = { ...envelope(1), type: 'TenantCreated', data: { name: 'Acme', plan: 'standard' } };
const planChanged: CatalogEvent = { ...envelope(3), type: 'TenantPlanChanged', data: { plan: 'high' } };
const issued: CatalogEvent = { ...envelope(2), type: 'ApiKeyIssued', data: { keyHash: 'a'.repeat(64), label: 'ci', keyId: 'key_one' } };
const revoked: CatalogEvent = { ...envelope(4), type: 'ApiKeyRevoked', data: { keyId: 'key_one' } };

describe('catalog projections', () => {
  it('creates a tenant once and moves its plan forward only; a replayed creation changes nothing', () => {
    const tenant = fold(catalog.tenantProjection, [created, planChanged]);
    expect(tenant).toEqual({ tenantId: 'acme', name: 'Acme', plan: 'high', createdAt: at, sequence: 3 });
    expect(catalog.tenantProjection.evolve(tenant, created as never)).toBe(tenant);
    expect(catalog.tenantProjection.evolve(tenant, planChanged as never)).toBe(tenant);
  });

  it('keys a key by its hash and its tenant index by id; a change is applied to the hash it names, forward only', () => {
    expect(catalog.apiKeyIssuedProjection.keyOf(issued as never)).toBe('a'.repeat(64));
    expect(catalog.apiKeyIdProjection.keyOf(issued as never)).toEqual({ group: 'acme', id: 'key_one' });
    expect(fold(catalog.apiKeyIdProjection, [issued, issued])).toBe('a'.repeat(64));
    const key = fold(catalog.apiKeyIssuedProjection, [issued]);
    const change = { keyHash: 'a'.repeat(64), event: revoked };
    expect(catalog.apiKeyChangeProjection.canHandle(change)).toBe(true);
    expect(catalog.apiKeyChangeProjection.canHandle(revoked)).toBe(false);
    const after = catalog.apiKeyChangeProjection.evolve(key, change);
    expect(after).toMatchObject({ keyId: 'key_one', revokedAt: at, sequence: 4 });
    expect(catalog.apiKeyChangeProjection.evolve(after, change as never)).toBe(after);
    expect(catalog.apiKeyIssuedProjection.evolve(after, issued as never)).toBe(after);
    expect(catalog.apiKeyChangeProjection.evolve(undefined, change as never)).toBeUndefined();
  });

  it('keeps the latest use of a key', () => {
    const uses = [
      { tenantId: 'acme', keyId: 'key_one', at: '2030-01-01T00:02:00.000Z' },
      { tenantId: 'acme', keyId: 'key_one', at: '2030-01-01T00:01:00.000Z' },
    ];
    expect(fold(catalog.apiKeyUseProjection, uses)).toEqual({ keyId: 'key_one', at: '2030-01-01T00:02:00.000Z' });
  });

  it('keeps a deleted connection as a tombstone an older registration cannot revive', () => {
    const data = { connectionId: 'main', bucket: 'b', region: 'r', accessKeyId: 'k', sealedSecretAccessKey: 'v1.x' };
    const registered: CatalogEvent = { ...envelope(2), type: 'S3ConnectionRegistered', data };
    const deleted: CatalogEvent = { ...envelope(3), type: 'S3ConnectionDeleted', data: { connectionId: 'main' } };
    expect(fold(catalog.s3ConnectionProjection, [registered, deleted, registered])).toMatchObject({ deletedAt: at, sequence: 3 });
  });

  it('moves webhook secrets forward only', () => {
    const first: CatalogEvent = { ...envelope(1), type: 'WebhookSecretCreated', data: { sealedSecret: 's1' } };
    const rotated: CatalogEvent = {
      ...envelope(2),
      type: 'WebhookSecretRotated',
      data: { sealedSecret: 's2', previousSealedSecret: 's1', previousExpiresAt: at },
    };
    expect(fold(catalog.webhookSecretsProjection, [first, rotated, first])?.current.sealedSecret).toBe('s2');
  });

  it("counts the tenant's stream over every catalog event, and nothing else", () => {
    expect(fold(catalog.catalogStreamVersionProjection, [created, issued, revoked, planChanged, created])).toBe(4);
    expect(catalog.catalogStreamVersionProjection.canHandle({ type: 'RenderRequested', tenantId: 'acme' })).toBe(false);
  });
});
