import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RouteHandler } from './route-table.ts';
import { sendError } from './error-mapper.ts';

/**
 * GET /docs: the OpenAPI document rendered by Swagger UI, served from node_modules by the service
 * itself, so the page works where there is no network (no CDN, no fonts, and no call to the online
 * validator: `validatorUrl: null`).
 */
const assetTypes: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
const INIT = 'init.js';
const initScript = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
  });
});
`;
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pressroom API</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/${INIT}"></script>
</body>
</html>
`;

export function docsPage(): { page: RouteHandler; asset: RouteHandler } {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  return {
    page: (ctx) => {
      // Relative links (docs/assets/…, ../openapi.json) keep working behind a proxy that mounts us under a prefix.
      if (ctx.path.endsWith('/')) return ctx.redirect('/docs');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page;
    },
    asset: async (ctx) => {
      const file = ctx.params.file ?? '';
      if (file === INIT) {
        ctx.type = 'text/javascript; charset=utf-8';
        ctx.body = initScript;
        return;
      }
      const type = assetTypes[file];
      if (!type) return sendError(ctx, 404, 'NOT_FOUND', `No docs asset ${file}.`);
      let bytes = cache.get(file);
      if (!bytes) cache.set(file, (bytes = await readFile(join(dist, file))));
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = bytes;
    },
  };
}
