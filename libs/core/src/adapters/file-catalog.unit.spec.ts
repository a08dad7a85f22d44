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
      await first.putTemplate({
        tenantId: 'acme',
        templateId: '../../escape',
        name: 'n',
        content: 'c',
        version: 1,
        createdAt: '2030-01-01T00:00:00.000Z',
        updatedAt: '2030-01-01T00:00:00.000Z',
      });
      await first.close();
      await writeFile(join(dir, 'templates', 'acme', 'half.json.1234.tmp'), '{"tenantId":');
      // When the catalog is opened again
      const second = createFileCatalog({ dir });
      // Then the record is read back from a file inside the tenant's folder, and the leftover is gone
      expect((await second.listTemplates('acme')).map((t) => t.templateId)).toEqual(['../../escape']);
      expect(await readdir(join(dir, 'templates', 'acme'))).toEqual(['%2E%2E%2F%2E%2E%2Fescape.json']);
      expect(await readdir(dir)).toEqual(['templates']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
