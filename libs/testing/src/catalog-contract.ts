import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiKeyRecord, Catalog, S3Connection, Tenant } from '@pressroom/core';

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

function tenant(tenantId: string): Tenant {
  return { tenantId, name: `Tenant ${tenantId}`, plan: 'standard', createdAt: at };
}

function connection(tenantId: string, connectionId: string): S3Connection {
  return {
    tenantId,
    connectionId,
    bucket: `bucket-${tenantId}`,
    region: 'eu-west-1',
    endpoint: 'https://s3.example.test',
    forcePathStyle: true,
    accessKeyId: 'AKIAEXAMPLE',
    sealedSecretAccessKey: 'v1.iv.tag.body',
    createdAt: at,
  };
}

/** The behaviour every Catalog adapter must show (see the port's JSDoc). */
export function catalogContract(name: string, options: CatalogContractOptions): void {
  describe(`Catalog contract: ${name}`, () => {
    let spaces: CatalogSpace[] = [];
    const open = async () => {
      const space = await options.createSpace();
      spaces.push(space);
      return space;
    };
    afterEach(async () => {
      await Promise.all(spaces.map((s) => s.dispose()));
      spaces = [];
    });

    it('stores and overwrites tenants', async () => {
      const catalog = await (await open()).open();
      const id = `t-${randomUUID()}`;
      expect(await catalog.getTenant(id)).toBeUndefined();
      await catalog.putTenant(tenant(id));
      expect(await catalog.getTenant(id)).toEqual(tenant(id));
      await catalog.putTenant({ ...tenant(id), plan: 'high' });
      expect((await catalog.getTenant(id))?.plan).toBe('high');
    });

    it('finds API keys by hash only', async () => {
      const catalog = await (await open()).open();
      const record: ApiKeyRecord = { keyHash: 'a'.repeat(64), tenantId: 'acme', label: 'ci', createdAt: at };
      await catalog.putApiKey(record);
      expect(await catalog.findApiKey(record.keyHash)).toEqual(record);
      expect(await catalog.findApiKey('b'.repeat(64))).toBeUndefined();
    });

    it('stores S3 connections per tenant, last writer wins', async () => {
      const catalog = await (await open()).open();
      expect(await catalog.getS3Connection('acme', 'main')).toBeUndefined();
      await catalog.putS3Connection(connection('acme', 'main'));
      await catalog.putS3Connection(connection('acme', 'backup'));
      expect(await catalog.getS3Connection('acme', 'main')).toEqual(connection('acme', 'main'));
      // When a connection is written again
      await catalog.putS3Connection({ ...connection('acme', 'main'), bucket: 'rotated' });
      // Then the last write is what is stored, and the other connection is untouched
      expect(await catalog.getS3Connection('acme', 'main')).toEqual({ ...connection('acme', 'main'), bucket: 'rotated' });
      expect(await catalog.getS3Connection('acme', 'backup')).toEqual(connection('acme', 'backup'));
      expect(await catalog.getS3Connection('nobody', 'main')).toBeUndefined();
    });

    it('keeps ids that look like paths or patterns apart', async () => {
      const catalog = await (await open()).open();
      const odd = ['../x', '../../escape', 'a/b', 'a*', '%2e%2e', '.', 'UPPER', 'upper'];
      for (const id of odd) await catalog.putS3Connection({ ...connection('acme', id), bucket: `bucket-${id}` });
      for (const id of odd) {
        const got = await catalog.getS3Connection('acme', id);
        expect(got?.connectionId).toBe(id);
        expect(got?.bucket).toBe(`bucket-${id}`);
      }
      // A pattern is an id like any other, not a wildcard
      expect(await catalog.getS3Connection('acme', '*')).toBeUndefined();
      expect(await catalog.getS3Connection('acme', 'a?')).toBeUndefined();
    });

    it("never shows one tenant another tenant's connections", async () => {
      // Given acme's connection
      const catalog = await (await open()).open();
      await catalog.putS3Connection(connection('acme', 'main'));
      // Then globex, asking for the same id, finds nothing
      expect(await catalog.getS3Connection('globex', 'main')).toBeUndefined();
      // and globex's own connection of that id is independent
      await catalog.putS3Connection({ ...connection('globex', 'main'), bucket: 'globex-own' });
      expect((await catalog.getS3Connection('acme', 'main'))?.bucket).toBe(connection('acme', 'main').bucket);
      expect((await catalog.getS3Connection('globex', 'main'))?.bucket).toBe('globex-own');
    });

    it('returns copies that callers cannot use to change the catalog', async () => {
      const catalog = await (await open()).open();
      const written = connection('acme', 'main');
      await catalog.putS3Connection(written);
      // Neither the object that was written
      written.bucket = 'changed-after-put';
      // nor one that was read
      const got = await catalog.getS3Connection('acme', 'main');
      if (got) got.bucket = 'changed-after-get';
      // changes what is stored
      expect((await catalog.getS3Connection('acme', 'main'))?.bucket).toBe(connection('acme', 'main').bucket);
    });

    it('keeps everything across a re-open', async () => {
      // Given a catalog with one of each record, closed
      const space = await open();
      const first = await space.open();
      const key: ApiKeyRecord = { keyHash: 'c'.repeat(64), tenantId: 'acme', label: 'prod', createdAt: at };
      await first.putTenant(tenant('acme'));
      await first.putApiKey(key);
      await first.putS3Connection(connection('acme', 'main'));
      await first.putS3Connection({ ...connection('acme', 'main'), bucket: 'rotated' });
      await first.putS3Connection(connection('acme', '../../escape'));
      await first.close();
      // When it is opened again
      const second = await space.open();
      // Then every record is back, as last written
      expect(await second.getTenant('acme')).toEqual(tenant('acme'));
      expect(await second.findApiKey(key.keyHash)).toEqual(key);
      expect(await second.getS3Connection('acme', 'main')).toEqual({ ...connection('acme', 'main'), bucket: 'rotated' });
      expect(await second.getS3Connection('acme', '../../escape')).toEqual(connection('acme', '../../escape'));
    });

    it('keeps the first webhook secret of a tenant when two are added at once, and replaces it on put', async () => {
      // Given an empty catalog
      const catalog = await (await open()).open();
      const secrets = (tenantId: string, sealedSecret: string) => ({ tenantId, current: { sealedSecret, createdAt: at } });
      // When two processes add a first secret concurrently
      const [a, b] = await Promise.all([
        catalog.addWebhookSecrets(secrets('acme', 's1')),
        catalog.addWebhookSecrets(secrets('acme', 's2')),
      ]);
      // Then both see the same one, and it is stored; another tenant has none
      expect(a).toEqual(b);
      expect(await catalog.getWebhookSecrets('acme')).toEqual(a);
      expect(await catalog.getWebhookSecrets('globex')).toBeUndefined();
      // And a rotation replaces it
      const rotated = { tenantId: 'acme', current: { sealedSecret: 's3', createdAt: at }, previous: { sealedSecret: 's1', expiresAt: at } };
      await catalog.putWebhookSecrets(rotated);
      expect(await catalog.getWebhookSecrets('acme')).toEqual(rotated);
    });

    it('answers ping', async () => {
      const catalog = await (await open()).open();
      await expect(catalog.ping()).resolves.toBeUndefined();
    });
  });
}
