import Router from '@koa/router';
import { PressroomError } from '@pressroom/domain';
import { decodeKeyPath } from './object-key.ts';
import { LOCAL_UPLOAD_PREFIX, type LocalObjectStore } from './local-object-store.ts';

/**
 * PUT /v1/tools/uploads/<key>?expires=…&signature=… : the embedded profile's counterpart of an
 * S3 presigned PUT (GET /v1/tools/get-signed-upload-url hands these out). Mounted without
 * authentication: the signature is the credential, valid for one key until it expires. The body
 * is read up to `maxBytes` (413 above, nothing stored); a refused link is 403 and stores nothing.
 * Refusals are thrown as PressroomErrors: the ingress's error mapper writes them in the one shape.
 */
export function localUploadRoute(store: LocalObjectStore, maxBytes: number): Router {
  const router = new Router();
  router.put(`${LOCAL_UPLOAD_PREFIX}*key`, async (ctx) => {
    const key = decodeKeyPath(ctx.path.slice(LOCAL_UPLOAD_PREFIX.length));
    ctx.set('Cache-Control', 'no-store');
    if (key === undefined || !store.acceptsUpload(key, ctx.query.expires, ctx.query.signature)) {
      throw new PressroomError('FORBIDDEN', 'This upload link is invalid or has expired.');
    }
    const declared = Number(ctx.get('content-length') || '0');
    if (declared > maxBytes) throw tooLarge(maxBytes);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        ctx.set('Connection', 'close');
        throw tooLarge(maxBytes);
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

const tooLarge = (maxBytes: number) => new PressroomError('PAYLOAD_TOO_LARGE', `Uploads are limited to ${maxBytes} bytes.`);
