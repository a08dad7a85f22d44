import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileEventLog } from './adapters/file-event-log.ts';
import { createMemoryCatalog } from './adapters/memory-catalog.ts';
import { readFileCatalog } from './adapters/file-catalog.ts';
import { importLegacyCatalog } from './legacy-catalog-import.ts';
import { rebuildCatalog } from './self-rebuilding-catalog.ts';
import { topicNames } from './ports/event-log.ts';
import { uuidV7Ids } from './ports/clock.ts';

const root = await mkdtemp(join(tmpdir(), 'pressroom-legacy-catalog-'));
afterAll(() => rm(root, { recursive: true, force: true }));
const at = '2030-01-01T00:00:00.000Z';

async function writeRecord(path: string, value: unknown) {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, JSON.stringify(value));
}

describe('importLegacyCatalog', () => {
  it('writes a catalog kept in files as catalog events once; the view rebuilt from the log shows the same records', async () => {
    // Given the files an embedded deployment kept before the catalog moved to the log
    const dir = join(root, 'catalog');
    const key = { keyHash: 'a'.repeat(64), tenantId: 'acme', label: 'prod', createdAt: at };
    const connection = {
      tenantId: 'acme',
      connectionId: 'main',
      bucket: 'b',
      region: 'eu-west-1',
      accessKeyId: 'AKIAEXAMPLE',
      sealedSecretAccessKey: 'v1.iv.tag.body',
      createdAt: at,
    };
    const secrets = {
      tenantId: 'acme',
      current: { sealedSecret: 'v1.new', createdAt: at },
      previous: { sealedSecret: 'v1.old', expiresAt: at },
    };
    await writeRecord(join(dir, 'tenants', 'acme.json'), { tenantId: 'acme', name: 'Acme', plan: 'high', createdAt: at });
    await writeRecord(join(dir, 'api-keys', `${key.keyHash}.json`), key);
    await writeRecord(join(dir, 's3-connections', 'acme', 'main.json'), connection);
    await writeRecord(join(dir, 'webhook-secrets', 'acme.json'), secrets);
    const log = await createFileEventLog({ dir: join(root, 'log') });
    const topics = topicNames('legacy');
    try {
      // When they are imported, twice
      const first = await importLegacyCatalog(await readFileCatalog(dir), { log, topics, ids: uuidV7Ids, catalog: createMemoryCatalog() });
      const again = await importLegacyCatalog(await readFileCatalog(dir), { log, topics, ids: uuidV7Ids, catalog: createMemoryCatalog() });
      // Then the first wrote one stream for the tenant, and the second skipped it
      expect(first).toEqual({ tenantsImported: 1, tenantsSkipped: 0, events: 5 });
      expect(again).toEqual({ tenantsImported: 0, tenantsSkipped: 1, events: 0 });
      // And a view built only from the log holds the same records
      const view = createMemoryCatalog();
      expect(await rebuildCatalog(view, { log, topics })).toBe(5);
      expect(await view.getTenant('acme')).toEqual({ tenantId: 'acme', name: 'Acme', plan: 'high', createdAt: at });
      expect(await view.findApiKey(key.keyHash)).toMatchObject({ ...key, scopes: ['render', 'manage'] });
      expect(await view.getS3Connection('acme', 'main')).toMatchObject(connection);
      expect(await view.getWebhookSecrets('acme')).toMatchObject(secrets);
      expect(await view.streamVersion('acme')).toBe(5);
      expect(await view.isBuilt()).toBe(true);
    } finally {
      await log.close();
    }
  });
});
