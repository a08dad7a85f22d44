import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Catalog, S3Connection, Tenant } from '@pressroom/core';
import type { CatalogEvent, S3ConnectionRegistered } from '@pressroom/schemas';
import { spacesPerTest } from './contract-support.ts';

/**
 * One isolated catalog storage (a folder, a key prefix) owned by one test. Each `open()`
 * returns a new instance over the same storage, as a restarted process would see it.
 */
export interface CatalogSpace {
  open(): Promise<Catalog>;
  /** Closes every catalog opened and removes what the space stored. */
  dispose(): Promise<void>;
}

export interface CatalogContractOptions {
  createSpace(): Promise<CatalogSpace>;
}

const at = '2030-01-01T00:00:00.000Z';

const envelope = (tenantId: string, sequence: number) => ({
  eventId: randomUUID(),
  version: 1 as const,
  occurredAt: at,
  tenantId,
  sequence,
});

function created(tenantId: string, sequence = 1): CatalogEvent {
  return { ...envelope(tenantId, sequence), type: 'TenantCreated', data: { name: `Tenant ${tenantId}`, plan: 'standard' } };
}
function tenant(tenantId: string): Tenant {
  return { tenantId, name: `Tenant ${tenantId}`, plan: 'standard', createdAt: at };
}
function keyIssued(tenantId: string, keyHash: string, sequence: number): CatalogEvent {
  return { ...envelope(tenantId, sequence), type: 'ApiKeyIssued', data: { keyHash, label: 'ci' } };
}
function connectionData(connectionId: string, bucket: string): S3ConnectionRegistered['data'] {
  return {
    connectionId,
    bucket,
    region: 'eu-west-1',
    endpoint: 'https://s3.example.test',
    forcePathStyle: true,
    accessKeyId: 'AKIAEXAMPLE',
    sealedSecretAccessKey: 'v1.iv.tag.body',
  };
}
function registered(tenantId: string, connectionId: string, sequence: number, bucket = `bucket-${tenantId}`): CatalogEvent {
  return { ...envelope(tenantId, sequence), type: 'S3ConnectionRegistered', data: connectionData(connectionId, bucket) };
}
function connection(tenantId: string, connectionId: string, sequence: number, bucket = `bucket-${tenantId}`): S3Connection {
  return { tenantId, ...connectionData(connectionId, bucket), createdAt: at, sequence };
}
function secretCreated(tenantId: string, sealedSecret: string, sequence: number): CatalogEvent {
  return { ...envelope(tenantId, sequence), type: 'WebhookSecretCreated', data: { sealedSecret } };
}
function secretRotated(tenantId: string, sealedSecret: string, previous: string, sequence: number): CatalogEvent {
  return {
    ...envelope(tenantId, sequence),
    type: 'WebhookSecretRotated',
    data: { sealedSecret, previousSealedSecret: previous, previousExpiresAt: at },
  };
}

/** The behaviour every Catalog view adapter must show (see the port's JSDoc). */
export function catalogContract(name: string, options: CatalogContractOptions): void {
  describe(`Catalog contract: ${name}`, () => {
    const open = spacesPerTest(() => options.createSpace());

    it('derives tenants and API keys (by hash only) from their events, idempotently, and counts the stream', async () => {
      const catalog = await (await open()).open();
      const id = `t-${randomUUID()}`;
      expect(await catalog.getTenant(id)).toBeUndefined();
      expect(await catalog.streamVersion(id)).toBe(0);
      const events = [created(id), keyIssued(id, 'a'.repeat(64), 2)];
      for (const e of [...events, ...events]) await catalog.apply(e);
      expect(await catalog.getTenant(id)).toEqual(tenant(id));
      expect(await catalog.findApiKey('a'.repeat(64))).toEqual({
        keyHash: 'a'.repeat(64),
        keyId: expect.stringMatching(/^key_[A-Za-z0-9]+$/) as string,
        tenantId: id,
        label: 'ci',
        scopes: ['render', 'manage'],
        createdAt: at,
      });
      expect(await catalog.findApiKey('b'.repeat(64))).toBeUndefined();
      expect(await catalog.streamVersion(id)).toBe(2);
    });

    it('replaces an S3 connection only with a later registration, in whatever order events arrive', async () => {
      const catalog = await (await open()).open();
      await catalog.apply(registered('acme', 'main', 3, 'rotated'));
      await catalog.apply(registered('acme', 'main', 2, 'first'));
      await catalog.apply(registered('acme', 'backup', 4));
      expect(await catalog.getS3Connection('acme', 'main')).toEqual(connection('acme', 'main', 3, 'rotated'));
      expect(await catalog.getS3Connection('acme', 'backup')).toEqual(connection('acme', 'backup', 4));
      expect(await catalog.getS3Connection('nobody', 'main')).toBeUndefined();
      expect(await catalog.streamVersion('acme')).toBe(4);
    });

    it('keeps ids that look like paths or patterns apart', async () => {
      const catalog = await (await open()).open();
      const odd = ['../x', '../../escape', 'a/b', 'a*', '%2e%2e', '.', 'UPPER', 'upper'];
      for (const [i, id] of odd.entries()) await catalog.apply(registered('acme', id, i + 1, `bucket-${id}`));
      for (const id of odd) {
        const got = await catalog.getS3Connection('acme', id);
        expect(got?.connectionId).toBe(id);
        expect(got?.bucket).toBe(`bucket-${id}`);
      }
      expect(await catalog.getS3Connection('acme', '*')).toBeUndefined();
      expect(await catalog.getS3Connection('acme', 'a?')).toBeUndefined();
    });

    it("never shows one tenant another tenant's connections or secrets", async () => {
      const catalog = await (await open()).open();
      await catalog.apply(registered('acme', 'main', 1));
      await catalog.apply(secretCreated('acme', 's1', 2));
      expect(await catalog.getS3Connection('globex', 'main')).toBeUndefined();
      expect(await catalog.getWebhookSecrets('globex')).toBeUndefined();
      await catalog.apply(registered('globex', 'main', 1, 'globex-own'));
      expect((await catalog.getS3Connection('acme', 'main'))?.bucket).toBe('bucket-acme');
      expect((await catalog.getS3Connection('globex', 'main'))?.bucket).toBe('globex-own');
    });

    it('returns copies that callers cannot use to change the catalog', async () => {
      const catalog = await (await open()).open();
      await catalog.apply(registered('acme', 'main', 1));
      const got = await catalog.getS3Connection('acme', 'main');
      if (got) got.bucket = 'changed-after-get';
      expect((await catalog.getS3Connection('acme', 'main'))?.bucket).toBe('bucket-acme');
    });

    it('moves webhook secrets forward only: created, rotated, and a replayed creation changes nothing', async () => {
      const catalog = await (await open()).open();
      await catalog.apply(secretCreated('acme', 's1', 1));
      expect(await catalog.getWebhookSecrets('acme')).toEqual({
        tenantId: 'acme',
        current: { sealedSecret: 's1', createdAt: at },
        sequence: 1,
      });
      await catalog.apply(secretRotated('acme', 's2', 's1', 2));
      await catalog.apply(secretCreated('acme', 's1', 1));
      expect(await catalog.getWebhookSecrets('acme')).toEqual({
        tenantId: 'acme',
        current: { sealedSecret: 's2', createdAt: at },
        previous: { sealedSecret: 's1', expiresAt: at },
        sequence: 2,
      });
    });

    it("lists a tenant's keys only, applies revocation and rotation forward only, and keeps the latest use", async () => {
      const catalog = await (await open()).open();
      const id = `t-${randomUUID()}`;
      // Issued a second apart, as keys are: the list is ordered by creation (ties by keyId), and
      // a store's own order (a Redis hash's) must not show through.
      const issued = (hash: string, keyId: string, sequence: number): CatalogEvent => ({
        ...envelope(id, sequence),
        occurredAt: new Date(Date.parse(at) + sequence * 1_000).toISOString(),
        type: 'ApiKeyIssued',
        data: { keyHash: hash, label: keyId, keyId, prefix: 'prs_live_abcd', scopes: ['render'] },
      });
      const events: CatalogEvent[] = [
        created(id),
        issued('c'.repeat(64), 'key_old', 2),
        issued('d'.repeat(64), 'key_new', 3),
        { ...envelope(id, 4), type: 'ApiKeyRotated', data: { keyId: 'key_old', replacedBy: 'key_new', expiresAt: at } },
        { ...envelope(id, 5), type: 'ApiKeyRevoked', data: { keyId: 'key_new' } },
        { ...envelope(id, 6), type: 'TenantPlanChanged', data: { plan: 'high' } },
        created('other'),
        keyIssued('other', 'e'.repeat(64), 2),
      ];
      for (const e of [...events, ...events]) await catalog.apply(e);
      expect(await catalog.findApiKey('c'.repeat(64))).toMatchObject({
        keyId: 'key_old',
        expiresAt: at,
        replacedBy: 'key_new',
        scopes: ['render'],
      });
      expect(await catalog.findApiKey('d'.repeat(64))).toMatchObject({ keyId: 'key_new', revokedAt: at, prefix: 'prs_live_abcd' });
      expect((await catalog.getTenant(id))?.plan).toBe('high');
      await catalog.recordKeyUse(id, 'key_old', '2030-01-01T00:02:00.000Z');
      await catalog.recordKeyUse(id, 'key_old', '2030-01-01T00:01:00.000Z');
      const keys = await catalog.listApiKeys(id);
      expect(keys.map((k) => [k.keyId, k.lastUsedAt])).toEqual([
        ['key_old', '2030-01-01T00:02:00.000Z'],
        ['key_new', undefined],
      ]);
      expect(keys.every((k) => k.tenantId === id)).toBe(true);
      expect(await catalog.streamVersion(id)).toBe(6);
    });

    it('deletes an S3 connection for good: an older registration replayed after does not bring it back', async () => {
      const catalog = await (await open()).open();
      await catalog.apply(registered('acme', 'main', 2));
      await catalog.apply(registered('acme', 'keep', 3));
      await catalog.apply({ ...envelope('acme', 4), type: 'S3ConnectionDeleted', data: { connectionId: 'main' } });
      await catalog.apply(registered('acme', 'main', 2));
      expect(await catalog.getS3Connection('acme', 'main')).toBeUndefined();
      expect((await catalog.listS3Connections('acme')).map((c) => c.connectionId)).toEqual(['keep']);
      expect(await catalog.listS3Connections('globex')).toEqual([]);
      await catalog.apply(registered('acme', 'main', 5, 'again'));
      expect((await catalog.getS3Connection('acme', 'main'))?.bucket).toBe('again');
    });

    it('is built only after markBuilt, and clear forgets everything, the marker included', async () => {
      const catalog = await (await open()).open();
      expect(await catalog.isBuilt()).toBe(false);
      await catalog.apply(created('acme'));
      await catalog.markBuilt();
      expect(await catalog.isBuilt()).toBe(true);
      await catalog.clear();
      expect(await catalog.isBuilt()).toBe(false);
      expect(await catalog.getTenant('acme')).toBeUndefined();
      expect(await catalog.streamVersion('acme')).toBe(0);
    });

    it('answers ping', async () => {
      const catalog = await (await open()).open();
      await expect(catalog.ping()).resolves.toBeUndefined();
    });
  });
}
