import { describe, expect, it } from 'vitest';
import { validate, compileErrors } from '@readme/openapi-parser';
import { allRoutes, apiRoutes, adminApiRoutes, openRoutes } from './api-routes.ts';
import { openApiDocument } from './openapi.ts';
import { buildRouter, openApiPath, type Handlers, type RouteHandler } from './http/route-table.ts';

type Operation = {
  operationId: string;
  tags: string[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  requestBody?: unknown;
};
const doc = openApiDocument('http://localhost:3000') as { paths: Record<string, Record<string, Operation>> };
const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
);

/** What a router built from the table serves, read back from its layers. */
function served(specs: typeof allRoutes): string[] {
  const handlers = new Proxy({}, { get: (): RouteHandler => () => undefined }) as Handlers<string>;
  const router = buildRouter(specs, handlers);
  return router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${openApiPath(layer.path as string)}`));
}

describe('the route table drives the router and the OpenAPI document', () => {
  // The validator takes seconds on a loaded machine (it timed out at vitest's 5 s beside other work).
  it('the document is valid OpenAPI 3.1', { timeout: 60_000 }, async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('every route the routers serve is in the document, and every documented operation is served', () => {
    const routers = served([...apiRoutes, ...adminApiRoutes, ...openRoutes]);
    const storage = allRoutes.filter((r) => r.mount === 'storage').map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect([...routers, ...storage].sort()).toEqual(documented.map((d) => d.key).sort());
  });

  it('key scopes: only the key and S3 connection routes need manage, every other tenant route render; each documents its 403', () => {
    const manage = apiRoutes.filter((r) => r.scope === 'manage').map((r) => r.path);
    expect(manage.length).toBe(9);
    for (const path of manage) expect(path).toMatch(/^\/v1\/(keys|s3-connections)(\/|$)/);
    for (const r of apiRoutes.filter((x) => x.scope !== 'manage')) {
      expect(r.auth, r.operationId).toBe('apiKey');
      expect(r.path, r.operationId).not.toMatch(/^\/v1\/(keys|s3-connections)(\/|$)/);
    }
    for (const d of documented.filter((x) => x.key.includes(' /v1/'))) expect(Object.keys(d.op.responses), d.key).toContain('403');
  });

  it('operationIds are unique, and every operation has a tag and a summary', () => {
    const ids = documented.map((d) => d.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const d of documented) expect(d.op.tags, d.key).toHaveLength(1);
  });

  it('the PDF tools, batches, templates and history are documented', () => {
    const keys = documented.map((d) => d.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        'POST /v1/tools/merge-pdfs',
        'POST /v1/tools/split-pdf',
        'POST /v1/tools/compress-pdf',
        'POST /v1/tools/update-pdf-metadata',
        'POST /v1/tools/convert-markdown-to-pdf',
        'GET /v1/tools/get-signed-upload-url',
        'GET /v1/tools/status/{requestId}',
        'POST /v1/pdf/batch',
        'POST /v1/html-to-pdf/batch',
        'GET /v1/pdf/batch/status/{batchRequestId}',
        'GET /v1/templates/{templateId}/versions',
        'POST /v1/templates/{templateId}/preview',
        'GET /v1/pdf/{requestId}/events',
        'GET /v1/renders',
        'POST /admin/v1/tenants',
        'GET /v1/files/{key}',
        'GET /healthz',
        'GET /readyz',
        'GET /docs',
      ]),
    );
  });

  it('every 200 and 201 answer says what it carries (list endpoints included)', () => {
    // An upload's 200 is empty, as S3's presigned PUT answers.
    for (const d of documented.filter((x) => x.key !== 'PUT /v1/tools/uploads/{key}')) {
      for (const status of ['200', '201']) {
        const r = d.op.responses[status];
        if (r) expect(r.content, `${d.key} ${status}`).toBeDefined();
      }
    }
  });

  it('no JSON answer is a bare object: each names its members (the OpenAPI document itself aside)', () => {
    const bare: string[] = [];
    for (const d of documented.filter((x) => x.key !== 'GET /openapi.json')) {
      for (const [status, r] of Object.entries(d.op.responses)) {
        const schema = r.content?.['application/json']?.schema as Record<string, unknown> | undefined;
        if (schema && schema.type === 'object' && !schema.properties && !schema.additionalProperties) bare.push(`${d.key} ${status}`);
      }
    }
    expect(bare).toEqual([]);
  });

  it('the errors that can happen are documented in the one error shape', () => {
    const errorRef = { $ref: '#/components/schemas/ErrorBody' };
    for (const spec of apiRoutes) {
      const op = doc.paths[spec.path]![spec.method]!;
      const expected = ['401', '500', '503', ...(spec.method === 'post' || spec.method === 'put' ? ['400', '413', '415'] : [])];
      for (const status of expected) {
        expect(op.responses[status]?.content?.['application/json']?.schema, `${spec.operationId} ${status}`).toEqual(errorRef);
      }
    }
    expect(Object.keys(doc.paths['/v1/pdf/sync']!.post!.responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '401', '403', '404', '409', '413', '415', '422', '500', '503', '504']),
    );
  });
});
