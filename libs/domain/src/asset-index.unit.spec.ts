import { describe, expect, it } from 'vitest';
import type { AssetEvent } from '@pressroom/schemas';
import { applyAssetEvent, type AssetEntry } from './asset-index.ts';

const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();
const uploaded = (s: number, id: string, sha = 'a'.repeat(64)): AssetEvent => ({
  eventId: id,
  type: 'AssetUploaded',
  version: 1,
  occurredAt: at(s),
  tenantId: 't1',
  data: { name: 'logo.png', contentType: 'image/png', bytes: 10, sha256: sha },
});
const deleted = (s: number, id: string): AssetEvent => ({
  eventId: id,
  type: 'AssetDeleted',
  version: 1,
  occurredAt: at(s),
  tenantId: 't1',
  data: { name: 'logo.png' },
});

/** Applies events in the given order, as a view would. */
function fold(events: AssetEvent[]): AssetEntry | undefined {
  let entry: AssetEntry | undefined;
  for (const e of events) entry = applyAssetEvent(entry, e) ?? entry;
  return entry;
}

describe('asset index entries', () => {
  it('an upload makes the record; a later upload replaces it; a deletion removes it', () => {
    expect(fold([uploaded(1, 'e1')])?.record).toEqual({
      tenantId: 't1',
      name: 'logo.png',
      contentType: 'image/png',
      bytes: 10,
      sha256: 'a'.repeat(64),
      createdAt: at(1),
    });
    expect(fold([uploaded(1, 'e1'), uploaded(2, 'e2', 'b'.repeat(64))])?.record?.sha256).toBe('b'.repeat(64));
    expect(fold([uploaded(1, 'e1'), deleted(2, 'e2')])?.record).toBeUndefined();
  });

  it('gives the same entry whatever the order the events are applied in, and for an event applied twice', () => {
    const events = [uploaded(1, 'e1'), deleted(2, 'e2'), uploaded(3, 'e3', 'c'.repeat(64))];
    const inOrder = fold(events);
    expect(fold([...events].reverse())).toEqual(inOrder);
    expect(fold([events[2]!, events[0]!, events[1]!, events[2]!])).toEqual(inOrder);
    // An old upload applied after the deletion does not bring the asset back
    expect(fold([uploaded(1, 'e1'), deleted(2, 'e2'), uploaded(1, 'e1')])?.record).toBeUndefined();
  });

  it('says when an event changes nothing', () => {
    const entry = fold([uploaded(2, 'e2')]);
    expect(applyAssetEvent(entry, uploaded(2, 'e2'))).toBeUndefined();
    expect(applyAssetEvent(entry, deleted(1, 'e1'))).toBeUndefined();
    // Same millisecond: the larger id wins
    expect(applyAssetEvent(entry, deleted(2, 'e3'))).toEqual({ order: `${at(2)}|e3` });
  });
});
