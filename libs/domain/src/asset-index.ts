import type { AssetEvent } from '@pressroom/schemas';

/** What the asset index knows of one uploaded asset; the bytes live in the object store. */
export interface AssetRecord {
  tenantId: string;
  name: string;
  contentType: string;
  bytes: number;
  sha256: string;
  createdAt: string;
}

/** One name in a tenant's asset index: the last event applied to it, and the asset (absent once deleted). */
export interface AssetEntry {
  /** Orders the events of one name (see `assetEventOrder`). */
  order: string;
  record?: AssetRecord;
}

/**
 * The order of an asset event among the events of its name: its time, then its id (UUIDv7,
 * itself time-ordered), as one string that compares like the events. The view applies an
 * event only when it is newer than the one it holds, so applying the log again, an event
 * twice, or the writer's apply and the projector's in either order all give the same index.
 * (Two uploads of one name in the same millisecond from two processes end as the larger id.)
 */
export function assetEventOrder(event: AssetEvent): string {
  return `${event.occurredAt}|${event.eventId}`;
}

/** The asset an upload event describes. */
export function assetRecordOf(event: AssetEvent & { type: 'AssetUploaded' }): AssetRecord {
  const { name, contentType, bytes, sha256 } = event.data;
  return { tenantId: event.tenantId, name, contentType, bytes, sha256, createdAt: event.occurredAt };
}

/**
 * The entry of the event's name after the event, or undefined when the event changes nothing
 * (the entry holds this event or a newer one). A deletion leaves an entry without a record,
 * so an older upload applied later does not bring the asset back.
 */
export function applyAssetEvent(current: AssetEntry | undefined, event: AssetEvent): AssetEntry | undefined {
  const order = assetEventOrder(event);
  if (current && current.order >= order) return undefined;
  return event.type === 'AssetUploaded' ? { order, record: assetRecordOf(event) } : { order };
}
