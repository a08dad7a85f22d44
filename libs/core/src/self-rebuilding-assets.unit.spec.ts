import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '@pressroom/schemas';
import { assetRecord } from '@pressroom/testing';
import { createFileEventLog } from './adapters/file-event-log.ts';
import { createMemoryAssetIndex } from './adapters/memory-asset-index.ts';
import { topicNames, type EventLog } from './ports/event-log.ts';
import { importLegacyAssets, readFileAssetIndex, selfRebuildingAssetIndex } from './self-rebuilding-assets.ts';

describe('assets indexed before the log', () => {
  const dirs: string[] = [];
  const logs: EventLog[] = [];
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((l) => l.close()));
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it('are written to the log once (names on the log skipped), then the index serves them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-legacy-assets-'));
    dirs.push(dir);
    const log = await createFileEventLog({ dir: join(dir, 'log') });
    logs.push(log);
    const topics = topicNames('legacy');
    const ids = { next: () => randomUUID() };
    // Given the embedded profile's former index files, one per tenant
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'assets', 'acme.json'), JSON.stringify([assetRecord('acme', 'logo.png'), assetRecord('acme', 'font.woff2')]));
    await writeFile(join(dir, 'assets', 'beta.json'), JSON.stringify([assetRecord('beta', 'logo.png')]));
    const records = await readFileAssetIndex(join(dir, 'assets'));
    // When imported twice
    expect(await importLegacyAssets(records, { log, topics, ids })).toEqual({ imported: 3, skipped: 0 });
    expect(await importLegacyAssets(records, { log, topics, ids })).toEqual({ imported: 0, skipped: 3 });
    // Then the log holds one upload per asset, with its original time
    const events: LogEvent[] = [];
    await log.readAll([topics.assets], ({ event }) => void events.push(event));
    expect(events.map((e) => `${e.type} ${e.tenantId}`).sort()).toEqual(['AssetUploaded acme', 'AssetUploaded acme', 'AssetUploaded beta']);
    expect(new Set(events.map((e) => e.occurredAt))).toEqual(new Set(['2026-01-01T00:00:00.000Z']));
    // And a fresh index rebuilds itself from it on the first read
    const index = selfRebuildingAssetIndex(createMemoryAssetIndex(), { log, topics });
    expect(await index.get('acme', 'logo.png')).toEqual(assetRecord('acme', 'logo.png'));
    expect((await index.list('acme')).map((r) => r.name)).toEqual(['font.woff2', 'logo.png']);
    expect(await index.get('beta', 'font.woff2')).toBeUndefined();
  });
});
