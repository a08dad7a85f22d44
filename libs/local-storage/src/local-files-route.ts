import { Readable } from 'node:stream';
import Router from '@koa/router';
import { PressroomError } from '@pressroom/domain';
import { decodeKeyPath } from './object-key.ts';
import type { LocalObjectStore } from './local-object-store.ts';

const PREFIX = '/v1/files/';

/**
 * GET (and HEAD) /v1/files/<key>?expires=…&signature=… for links minted by a local object
 * store. Mounted without authentication: the signature is the credential. Every refusal is
 * the same FORBIDDEN error (403 in the one error shape, written by the ingress's error mapper),
 * with no file bytes; a genuine link to a removed file answers 410 EXPIRED.
 */
export function localFilesRoute(store: LocalObjectStore): Router {
  const router = new Router();
  router.get(`${PREFIX}*key`, async (ctx) => {
    // The raw path, decoded segment by segment: exactly the inverse of how links are built.
    const key = decodeKeyPath(ctx.path.slice(PREFIX.length));
    const { expires, signature } = ctx.query;
    const file = key === undefined ? 'forbidden' : await store.openSignedFile(key, expires, signature);
    if (file === 'gone') {
      ctx.status = 410;
      ctx.set('Cache-Control', 'no-store');
      const message = 'This file has expired or was deleted; render it again for a new one.';
      ctx.body = { message, error: { code: 'EXPIRED', message } };
      return;
    }
    if (file === 'forbidden') {
      ctx.set('Cache-Control', 'no-store');
      throw new PressroomError('FORBIDDEN', 'This link is invalid or has expired.');
    }
    ctx.status = 200;
    ctx.type = file.contentType;
    ctx.length = file.size;
    ctx.set('Cache-Control', `private, max-age=${file.maxAgeSeconds}`);
    ctx.set('Content-Disposition', contentDisposition(file.fileName));
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (ctx.method === 'HEAD') {
      if (file.body instanceof Readable) file.body.destroy(); // Koa sends no body for HEAD and would never read it
      return;
    }
    ctx.body = file.body; // a stream: Koa destroys it (closing the file) when the response ends
  });
  return router;
}

/** `inline; filename="…"`, with an ASCII fallback and RFC 5987 `filename*` when needed. */
function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (ascii === fileName) return `inline; filename="${fileName}"`;
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
