import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { expect, inject, it } from 'vitest';
import { createFileEventLog, importLegacyCatalog, rebuildCatalog, topicNames, uuidV7Ids } from '@pressroom/core';
import { createRedisCatalog } from './redis-catalog.ts';
import { readRedisCatalogRecords } from './redis-legacy-catalog.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');
const at = '2030-01-01T00:00:00.000Z';

it('imports the catalog a deployment kept in Redis before it moved to the log; a view rebuilt from the log after a wipe knows it', async () => {
  // Given the records of before, written as the old catalog wrote them (no sequence, no log)
  const keyPrefix = `test:${randomUUID()}:`;
  const admin = new Redis(url);
  const dir = await mkdtemp(join(tmpdir(), 'pressroom-legacy-redis-'));
  const log = await createFileEventLog({ dir });
  const view = createRedisCatalog({ url, keyPrefix });
  try {
    const key = { keyHash: 'd'.repeat(64), tenantId: 'acme', label: 'prod', createdAt: at };
    await admin.set(`${keyPrefix}catalog:tenant:acme`, JSON.stringify({ tenantId: 'acme', name: 'Acme', plan: 'high', createdAt: at }));
    await admin.set(`${keyPrefix}catalog:api-key:${key.keyHash}`, JSON.stringify(key));
    await admin.hset(
      `${keyPrefix}catalog:s3-connections:acme`,
      'main',
      JSON.stringify({
        tenantId: 'acme',
        connectionId: 'main',
        bucket: 'b',
        region: 'r',
        accessKeyId: 'k',
        sealedSecretAccessKey: 'v1.x',
        createdAt: at,
      }),
    );
    await admin.set(
      `${keyPrefix}catalog:webhook-secrets:acme`,
      JSON.stringify({ tenantId: 'acme', current: { sealedSecret: 'v1.s', createdAt: at } }),
    );
    // When they are imported, and then Redis loses everything
    const topics = topicNames('legacy-redis');
    const result = await importLegacyCatalog(await readRedisCatalogRecords({ url, keyPrefix }), {
      log,
      topics,
      ids: uuidV7Ids,
      catalog: view,
    });
    expect(result).toEqual({ tenantsImported: 1, tenantsSkipped: 0, events: 4 });
    await unlinkByPrefix(admin, keyPrefix);
    expect(await view.findApiKey(key.keyHash)).toBeUndefined();
    // Then the view rebuilt from the log alone has the key, the tenant, the connection and the secret
    expect(await rebuildCatalog(view, { log, topics })).toBe(4);
    expect(await view.findApiKey(key.keyHash)).toMatchObject({ ...key, scopes: ['render', 'manage'] });
    expect(await view.getTenant('acme')).toEqual({ tenantId: 'acme', name: 'Acme', plan: 'high', createdAt: at });
    expect((await view.getS3Connection('acme', 'main'))?.bucket).toBe('b');
    expect((await view.getWebhookSecrets('acme'))?.current.sealedSecret).toBe('v1.s');
  } finally {
    await view.close();
    await log.close();
    await unlinkByPrefix(admin, keyPrefix);
    await admin.quit();
    await rm(dir, { recursive: true, force: true });
  }
});
