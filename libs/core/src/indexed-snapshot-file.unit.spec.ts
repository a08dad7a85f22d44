import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BLOCK_ITEMS, DamagedSnapshotError, openIndexedSnapshot, writeIndexedSnapshot } from './indexed-snapshot-file.ts';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const keyOf = (item: unknown) => (item as { id: string }).id;
const id = (n: number) => `r-${String(n).padStart(5, '0')}`;

async function written(count: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pressroom-indexed-snapshot-'));
  dirs.push(dir);
  const path = join(dir, 'view.snapshot');
  const fh = await open(path, 'w');
  const items = Array.from({ length: count }, (_, n) => ({ key: id(n * 2), line: JSON.stringify({ id: id(n * 2), n, note: 'ü"\\' }) }));
  expect(await writeIndexedSnapshot(fh, { format: 'test/1' }, items)).toBe(count);
  await fh.close();
  return path;
}

describe('indexed snapshot file', () => {
  it('finds every item by key without loading the file, answers undefined between and beyond the keys, and scans in order', async () => {
    const count = BLOCK_ITEMS * 3 + 5;
    const file = await openIndexedSnapshot(await written(count), keyOf);
    expect(file.header).toEqual({ format: 'test/1' });
    expect(file.count).toBe(count);
    for (const n of [0, 1, BLOCK_ITEMS - 1, BLOCK_ITEMS, count - 1]) {
      expect(JSON.parse((await file.lookup(id(n * 2))) ?? 'null')).toEqual({ id: id(n * 2), n, note: 'ü"\\' });
    }
    for (const missing of [id(1), id(BLOCK_ITEMS * 2 + 1), id(count * 2 + 1), 'a', 'zzz'])
      expect(await file.lookup(missing)).toBeUndefined();
    const keys: string[] = [];
    for await (const { key } of file.scan()) keys.push(key);
    expect(keys).toEqual(Array.from({ length: count }, (_, n) => id(n * 2)));
    await file.close();
  });

  it('opens an empty one', async () => {
    const file = await openIndexedSnapshot(await written(0), keyOf);
    expect(file.count).toBe(0);
    expect(await file.lookup(id(0))).toBeUndefined();
    await file.close();
  });

  it('refuses a file cut short, and a damaged block when it is read', async () => {
    const path = await written(BLOCK_ITEMS * 2);
    const good = await readFile(path, 'utf8');
    await writeFile(path, good.slice(0, good.length - 10));
    await expect(openIndexedSnapshot(path, keyOf)).rejects.toBeInstanceOf(DamagedSnapshotError);

    await writeFile(path, good.replace(`"n":${BLOCK_ITEMS + 1},`, `"n":${BLOCK_ITEMS + 7},`));
    const file = await openIndexedSnapshot(path, keyOf);
    expect(await file.lookup(id(0))).toBeDefined(); // the first block is whole
    await expect(file.lookup(id((BLOCK_ITEMS + 1) * 2))).rejects.toBeInstanceOf(DamagedSnapshotError);
    await file.close();
  });

  it('refuses items out of order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-indexed-snapshot-'));
    dirs.push(dir);
    const fh = await open(join(dir, 'x'), 'w');
    await expect(
      writeIndexedSnapshot(fh, {}, [
        { key: 'b', line: '{"id":"b"}' },
        { key: 'a', line: '{"id":"a"}' },
      ]),
    ).rejects.toThrow('out of order');
    await fh.close();
  });
});
