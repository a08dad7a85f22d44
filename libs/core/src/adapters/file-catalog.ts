import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiKeyRecord, Catalog, S3Connection, Tenant, WebhookSecrets } from '../ports/catalog.ts';

/**
 * The embedded profile's catalog: one JSON file per record under `dir`, loaded into memory
 * on first use and served from there.
 *
 *   <dir>/tenants/<tenantId>.json
 *   <dir>/api-keys/<keyHash>.json
 *   <dir>/s3-connections/<tenantId>/<connectionId>.json
 *   <dir>/webhook-secrets/<tenantId>.json
 *
 * Every id is percent-encoded into its file name (dots too), so no id can name another path.
 * A write goes to a temporary file that is synced and renamed into place, so a crash leaves
 * the old record or the new one, never half of one. Writes are serialised in this process;
 * the folder belongs to one process (the embedded profile is one process), which is why the
 * in-memory copy can be trusted.
 */
export function createFileCatalog(options: { dir: string }): Catalog {
  const { dir } = options;
  let loaded: Promise<State> | undefined;
  let writes: Promise<unknown> = Promise.resolve();

  const state = () => (loaded ??= load(dir));
  /** Runs file changes one at a time, so the memory copy follows the order of the renames. */
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const run = writes.then(job, job);
    writes = run.catch(() => undefined);
    return run;
  };

  return {
    async putTenant(tenant: Tenant) {
      const s = await state();
      await serial(() => writeJson(join(dir, 'tenants', fileName(tenant.tenantId)), tenant));
      s.tenants.set(tenant.tenantId, copy(tenant));
    },
    async getTenant(tenantId) {
      return copy((await state()).tenants.get(tenantId));
    },
    async putApiKey(record: ApiKeyRecord) {
      const s = await state();
      await serial(() => writeJson(join(dir, 'api-keys', fileName(record.keyHash)), record));
      s.apiKeys.set(record.keyHash, copy(record));
    },
    async findApiKey(keyHash) {
      return copy((await state()).apiKeys.get(keyHash));
    },
    async putS3Connection(connection: S3Connection) {
      const s = await state();
      const path = join(dir, 's3-connections', segment(connection.tenantId), fileName(connection.connectionId));
      await serial(() => writeJson(path, connection));
      bucket(s.connections, connection.tenantId).set(connection.connectionId, copy(connection));
    },
    async getS3Connection(tenantId, connectionId) {
      return copy((await state()).connections.get(tenantId)?.get(connectionId));
    },
    async getWebhookSecrets(tenantId) {
      return copy((await state()).webhookSecrets.get(tenantId));
    },
    async addWebhookSecrets(secrets: WebhookSecrets) {
      const s = await state();
      return serial(async () => {
        const existing = s.webhookSecrets.get(secrets.tenantId);
        if (existing) return copy(existing);
        await writeJson(join(dir, 'webhook-secrets', fileName(secrets.tenantId)), secrets);
        s.webhookSecrets.set(secrets.tenantId, copy(secrets));
        return copy(secrets);
      });
    },
    async putWebhookSecrets(secrets: WebhookSecrets) {
      const s = await state();
      await serial(() => writeJson(join(dir, 'webhook-secrets', fileName(secrets.tenantId)), secrets));
      s.webhookSecrets.set(secrets.tenantId, copy(secrets));
    },
    async ping() {
      await state();
    },
    async close() {
      await writes;
    },
  };
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

async function writeJson(path: string, value: unknown): Promise<void> {
  const folder = join(path, '..');
  await mkdir(folder, { recursive: true });
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(JSON.stringify(value), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}

/** Percent-encodes an id into one safe path segment: `.`, `..`, `/` and `\` cannot survive. */
function segment(id: string): string {
  return encodeURIComponent(id).replace(/[.*!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function fileName(id: string): string {
  return `${segment(id)}.json`;
}

function bucket<V>(map: Map<string, Map<string, V>>, tenantId: string): Map<string, V> {
  let inner = map.get(tenantId);
  if (!inner) map.set(tenantId, (inner = new Map<string, V>()));
  return inner;
}

function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
