import Type, { type Static, type TSchema } from 'typebox';
import { eventEnvelope, TenantId } from './common.ts';
import { AssetContentType, AssetName } from './assets.ts';

/**
 * Asset events: a tenant's uploaded fonts and images, on the assets topic keyed by tenantId, so
 * one tenant's uploads and deletions stay in order on one partition and the asset index (a view)
 * can be rebuilt from them. The bytes are in the object store (`<tenantId>/assets/<name>`),
 * written before the upload event and removed after the deletion event.
 */
function assetEnvelope<T extends string, D extends TSchema>(type: T, data: D) {
  return eventEnvelope(type, { tenantId: TenantId }, data);
}

export const AssetUploaded = assetEnvelope(
  'AssetUploaded',
  Type.Object(
    {
      name: AssetName,
      contentType: AssetContentType,
      bytes: Type.Integer({ minimum: 0 }),
      sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes, hex.' }),
    },
    { additionalProperties: false, description: 'Replaces an asset of the same name.' },
  ),
);

export const AssetDeleted = assetEnvelope('AssetDeleted', Type.Object({ name: AssetName }, { additionalProperties: false }));

export type AssetUploaded = Static<typeof AssetUploaded>;
export type AssetDeleted = Static<typeof AssetDeleted>;
export type AssetEvent = AssetUploaded | AssetDeleted;
