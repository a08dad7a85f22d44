import type { BuiltMarker } from './built-marker.ts';
import type { AssetEvent } from '@pressroom/schemas';

export type { AssetRecord } from '@pressroom/domain';
import type { AssetRecord } from '@pressroom/domain';

/**
 * The per-tenant index of uploaded assets (fonts, images): a view of the asset events on the
 * log (AssetUploaded, AssetDeleted), rebuilt from them when lost (`selfRebuildingAssetIndex`).
 *
 * Adapters guarantee: reads are scoped by tenant (another tenant's asset is absent); `apply`
 * is idempotent and order-independent (`applyAssetEvent`: an event applies only when newer
 * than the last one applied to its name, and a deletion is remembered), safe from several
 * processes; the built marker lives exactly as long as the data.
 */
export interface AssetIndex extends BuiltMarker {
  apply(event: AssetEvent): Promise<void>;
  get(tenantId: string, name: string): Promise<AssetRecord | undefined>;
  list(tenantId: string): Promise<AssetRecord[]>;
  /** Removes every entry and the built marker. */
  clear(): Promise<void>;
  isBuilt(): Promise<boolean>;
  markBuilt(): Promise<void>;
  close(): Promise<void>;
}
