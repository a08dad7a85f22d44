/** What the index knows of one uploaded asset; the bytes live in the object store. */
export interface AssetRecord {
  tenantId: string;
  name: string;
  contentType: string;
  bytes: number;
  sha256: string;
  createdAt: string;
}

/**
 * The per-tenant index of uploaded assets (fonts, images).
 *
 * Adapters guarantee: reads are scoped by tenant (another tenant's asset is absent); `put`
 * replaces a record of the same name (last writer wins); `delete` resolves false when there
 * was nothing to delete.
 */
export interface AssetIndex {
  put(record: AssetRecord): Promise<void>;
  get(tenantId: string, name: string): Promise<AssetRecord | undefined>;
  list(tenantId: string): Promise<AssetRecord[]>;
  delete(tenantId: string, name: string): Promise<boolean>;
  close(): Promise<void>;
}
