import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { AssetIndex, AssetRecord } from '../ports/assets.ts';

/**
 * The embedded profile's asset index: one JSON file per tenant under `dir`
 * (`<dir>/<tenantId, percent-encoded>.json`, name → record), written to a temporary file,
 * synced and renamed, so a crash leaves the old index or the new one. Writes are serialised
 * in this process, which owns the folder (the embedded profile is one process).
 */
export function createFileAssetIndex(options: { dir: string }): AssetIndex {
  const cache = new Map<string, Map<string, AssetRecord>>();
  let writes: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const run = writes.then(job, job);
    writes = run.catch(() => undefined);
    return run;
  };
  const fileOf = (tenantId: string) =>
    join(options.dir, `${encodeURIComponent(tenantId).replace(/[.*!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}.json`);

  async function load(tenantId: string): Promise<Map<string, AssetRecord>> {
    let m = cache.get(tenantId);
    if (m) return m;
    try {
      const records = JSON.parse(await readFile(fileOf(tenantId), 'utf8')) as AssetRecord[];
      m = new Map(records.map((r) => [r.name, r]));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      m = new Map();
    }
    cache.set(tenantId, m);
    return m;
  }

  async function save(tenantId: string, m: Map<string, AssetRecord>): Promise<void> {
    await mkdir(options.dir, { recursive: true });
    const path = fileOf(tenantId);
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(JSON.stringify([...m.values()]), 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  }

  return {
    put: (record) =>
      serial(async () => {
        const m = new Map(await load(record.tenantId));
        m.set(record.name, { ...record });
        await save(record.tenantId, m);
        cache.set(record.tenantId, m);
      }),
    async get(tenantId, name) {
      const r = (await load(tenantId)).get(name);
      return r ? { ...r } : undefined;
    },
    async list(tenantId) {
      return [...(await load(tenantId)).values()].map((r) => ({ ...r })).sort((a, b) => a.name.localeCompare(b.name));
    },
    delete: (tenantId, name) =>
      serial(async () => {
        const m = new Map(await load(tenantId));
        if (!m.delete(name)) return false;
        await save(tenantId, m);
        cache.set(tenantId, m);
        return true;
      }),
    async close() {
      await writes;
    },
  };
}
