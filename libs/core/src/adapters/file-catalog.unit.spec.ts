import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogContract } from '@pressroom/testing';
import { createFileCatalog } from './file-catalog.ts';

catalogContract('file', {
  async createSpace() {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-catalog-'));
    const opened: { close(): Promise<void> }[] = [];
    return {
      async open() {
        const catalog = createFileCatalog({ dir });
        opened.push(catalog);
        return catalog;
      },
      async dispose() {
        await Promise.all(opened.map((c) => c.close()));
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});

describe('FileCatalog on disk', () => {
  it('writes one file per record and sweeps leftovers of interrupted writes', async () => {
    // Given a folder with a leftover temporary file from a crash
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-catalog-'));
    try {
      const first = createFileCatalog({ dir });
      const connection = {
        tenantId: 'acme',
        connectionId: '../../escape',
        bucket: 'b',
        region: 'eu-west-1',
        accessKeyId: 'AKIAEXAMPLE',
        sealedSecretAccessKey: 'v1.iv.tag.body',
        createdAt: '2030-01-01T00:00:00.000Z',
      };
      await first.putS3Connection(connection);
      await first.close();
      await writeFile(join(dir, 's3-connections', 'acme', 'half.json.1234.tmp'), '{"tenantId":');
      // When the catalog is opened again
      const second = createFileCatalog({ dir });
      // Then the record is read back from a file inside the tenant's folder, and the leftover is gone
      expect(await second.getS3Connection('acme', '../../escape')).toEqual(connection);
      expect(await readdir(join(dir, 's3-connections', 'acme'))).toEqual(['%2E%2E%2F%2E%2E%2Fescape.json']);
      expect(await readdir(dir)).toEqual(['s3-connections']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
