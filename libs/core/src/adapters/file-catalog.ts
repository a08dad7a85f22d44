import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiKeyRecord, S3Connection, Tenant, WebhookSecrets } from '../ports/catalog.ts';

/**
 * The embedded profile's catalog as it was kept before it moved to the log: one JSON file per
 * record under `dir`. Read once, by the one-time import (see importLegacyCatalog), never written.
 *
 *   <dir>/tenants/<tenantId>.json
 *   <dir>/api-keys/<keyHash>.json
 *   <dir>/s3-connections/<tenantId>/<connectionId>.json
 *   <dir>/webhook-secrets/<tenantId>.json
 */
export async function readFileCatalog(dir: string): Promise<LegacyCatalogRecords> {
  const s = await load(dir);
  return {
    tenants: [...s.tenants.values()],
    apiKeys: [...s.apiKeys.values()],
    connections: [...s.connections.values()].flatMap((m) => [...m.values()]),
    webhookSecrets: [...s.webhookSecrets.values()],
  };
}

/** Every record of a catalog kept outside the log (files, or the Redis keys of before). */
export interface LegacyCatalogRecords {
  tenants: Tenant[];
  apiKeys: ApiKeyRecord[];
  connections: S3Connection[];
  webhookSecrets: WebhookSecrets[];
}

interface State {
  tenants: Map<string, Tenant>;
  apiKeys: Map<string, ApiKeyRecord>;
  connections: Map<string, Map<string, S3Connection>>;
  webhookSecrets: Map<string, WebhookSecrets>;
}

async function load(dir: string): Promise<State> {
  await mkdir(dir, { recursive: true });
  const tenants = new Map((await readAll<Tenant>(join(dir, 'tenants'))).map((t) => [t.tenantId, t]));
  const apiKeys = new Map((await readAll<ApiKeyRecord>(join(dir, 'api-keys'))).map((k) => [k.keyHash, k]));
  const connections = new Map<string, Map<string, S3Connection>>();
  for (const c of await readNested<S3Connection>(join(dir, 's3-connections'))) bucket(connections, c.tenantId).set(c.connectionId, c);
  const webhookSecrets = new Map((await readAll<WebhookSecrets>(join(dir, 'webhook-secrets'))).map((w) => [w.tenantId, w]));
  return { tenants, apiKeys, connections, webhookSecrets };
}

/** Reads every record of one folder; leftovers of an interrupted write (`.tmp`) are removed. */
async function readAll<T>(folder: string): Promise<T[]> {
  const names = await readdir(folder).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  const records: T[] = [];
  for (const name of names) {
    const path = join(folder, name);
    if (name.endsWith('.tmp')) await unlink(path).catch(() => undefined);
    else if (name.endsWith('.json')) records.push(JSON.parse(await readFile(path, 'utf8')) as T);
  }
  return records;
}

async function readNested<T>(folder: string): Promise<T[]> {
  const tenants = await readdir(folder).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  return (await Promise.all(tenants.map((t) => readAll<T>(join(folder, t))))).flat();
}

function bucket<V>(map: Map<string, Map<string, V>>, tenantId: string): Map<string, V> {
  let inner = map.get(tenantId);
  if (!inner) map.set(tenantId, (inner = new Map<string, V>()));
  return inner;
}
