import type { Handlers, RouteHandler } from '../http/route-table.ts';
import { ASSET_ORIGIN, type AssetRecord, type AssetStore } from '@pressroom/core';
import { AssetUploadBody, type AssetResource } from '@pressroom/schemas';
import { PressroomError, looksLike, notFound, validationError } from '@pressroom/domain';
import { bodyParser } from '../http/validate.ts';
import { tenantOf } from '../http/auth.ts';

const parseUpload = bodyParser(AssetUploadBody);

function resource(r: AssetRecord): AssetResource {
  return {
    name: r.name,
    contentType: r.contentType,
    bytes: r.bytes,
    sha256: r.sha256,
    url: `${ASSET_ORIGIN}/${r.name}`,
    createdAt: r.createdAt,
  };
}

/**
 * Per-tenant fonts and images, uploaded once as JSON (`dataBase64`: the API takes JSON only)
 * and referenced from templates as https://assets.pressroom.invalid/<name>.
 */
export function assetRoutes(deps: {
  assets: AssetStore;
  maxAssetBytes: number;
}): Handlers<'uploadAsset' | 'listAssets' | 'getAsset' | 'getAssetContent' | 'deleteAsset'> {
  const uploadAsset: RouteHandler = async (ctx) => {
    const body = parseUpload(ctx.request.body);
    const bytes = new Uint8Array(Buffer.from(body.dataBase64, 'base64'));
    if (bytes.byteLength === 0) throw validationError([{ field: 'dataBase64', message: 'is empty' }]);
    if (bytes.byteLength > deps.maxAssetBytes) {
      throw new PressroomError(
        'PAYLOAD_TOO_LARGE',
        `An asset may be at most ${deps.maxAssetBytes} bytes; this one is ${bytes.byteLength}.`,
      );
    }
    if (!looksLike(body.contentType, bytes)) {
      throw validationError([{ field: 'dataBase64', message: `does not look like a ${body.contentType} file` }]);
    }
    const tenantId = tenantOf(ctx).tenantId;
    const existed = (await deps.assets.get(tenantId, body.name)) !== undefined;
    const record = await deps.assets.put(tenantId, body.name, body.contentType, bytes);
    ctx.status = existed ? 200 : 201;
    ctx.set('Location', `/v1/assets/${record.name}`);
    ctx.body = resource(record);
  };

  const listAssets: RouteHandler = async (ctx) => {
    ctx.body = { assets: (await deps.assets.list(tenantOf(ctx).tenantId)).map(resource) };
  };

  const getAsset: RouteHandler = async (ctx) => {
    const record = await deps.assets.get(tenantOf(ctx).tenantId, ctx.params.name ?? '');
    if (!record) throw notFound(`Asset ${ctx.params.name}`);
    ctx.body = resource(record);
  };

  const getAssetContent: RouteHandler = async (ctx) => {
    const file = await deps.assets.read(tenantOf(ctx).tenantId, ctx.params.name ?? '');
    if (!file) throw notFound(`Asset ${ctx.params.name}`);
    ctx.type = file.contentType;
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = Buffer.from(file.bytes);
  };

  const deleteAsset: RouteHandler = async (ctx) => {
    if (!(await deps.assets.delete(tenantOf(ctx).tenantId, ctx.params.name ?? ''))) throw notFound(`Asset ${ctx.params.name}`);
    ctx.status = 204;
  };

  return { uploadAsset, listAssets, getAsset, getAssetContent, deleteAsset };
}
