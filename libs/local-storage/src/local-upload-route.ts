import Router from '@koa/router';
import { decodeKeyPath } from './object-key.ts';
import { LOCAL_UPLOAD_PREFIX, type LocalObjectStore } from './local-object-store.ts';

/**
 * PUT /v1/tools/uploads/<key>?expires=…&signature=… : the embedded profile's counterpart of an
 * S3 presigned PUT (GET /v1/tools/get-signed-upload-url hands these out). Mounted without
 * authentication: the signature is the credential, valid for one key until it expires. The body
 * is read up to `maxBytes` (413 above, nothing stored); a refused link is 403 and stores nothing.
 */
export function localUploadRoute(store: LocalObjectStore, maxBytes: number): Router {
  const router = new Router();
  router.put(`${LOCAL_UPLOAD_PREFIX}*key`, async (ctx) => {
    const key = decodeKeyPath(ctx.path.slice(LOCAL_UPLOAD_PREFIX.length));
    ctx.set('Cache-Control', 'no-store');
    if (key === undefined || !store.acceptsUpload(key, ctx.query.expires, ctx.query.signature)) {
      ctx.status = 403;
      ctx.body = { error: { code: 'FORBIDDEN', message: 'This upload link is invalid or has expired.' } };
      return;
    }
    const declared = Number(ctx.get('content-length') || '0');
    if (declared > maxBytes) {
      ctx.status = 413;
      ctx.body = { error: { code: 'PAYLOAD_TOO_LARGE', message: `Uploads are limited to ${maxBytes} bytes.` } };
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        ctx.status = 413;
        ctx.set('Connection', 'close');
        ctx.body = { error: { code: 'PAYLOAD_TOO_LARGE', message: `Uploads are limited to ${maxBytes} bytes.` } };
        return;
      }
      chunks.push(chunk);
    }
    const type = ctx.get('content-type').split(';')[0]?.trim() || 'application/pdf';
    await store.put(key, Buffer.concat(chunks), type);
    ctx.status = 200;
    ctx.body = '';
  });
  return router;
}
