import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { validate, compileErrors } from '@readme/openapi-parser';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { createBucket, listKeys, s3Credentials } from '../support/s3.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

type Operation = { operationId: string; security?: unknown[] };
type Document = { paths: Record<string, Record<string, Operation>> };

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

function expectErrorShape(json: unknown, code: string): void {
  expect(json).toMatchObject({ error: { code, message: expect.any(String) } });
  expect(JSON.stringify(json)).not.toMatch(/\bat .+\.ts:\d+/); // never a stack trace
}

describe('embedded profile: errors, authentication, tenant isolation and the API description', () => {
  let svc: Svc;
  let templateId: string;
  let other: ApiClient;

  beforeAll(async () => {
    svc = await startEmbedded({ PRESSROOM_MAX_BODY_BYTES: '65536' });
    templateId = (await svc.api.post('/v1/templates', { name: 't', content: '<p><%= it.x %></p>' })).json.templateId;
    const tenant = await svc.admin.post('/admin/v1/tenants', { tenantId: 'globex', name: 'Globex', plan: 'standard' });
    expect(tenant.status).toBe(201);
    const key = await svc.admin.post('/admin/v1/tenants/globex/keys', { label: 'ci' });
    expect(key.status).toBe(201);
    other = apiClient(svc.baseUrl, key.json.apiKey);
  });
  afterAll(async () => {
    await svc?.app.stop();
  });

  it('401 without a key, with a malformed header, and with an unknown key', async () => {
    const none = await fetch(`${svc.baseUrl}/v1/templates`);
    expect(none.status).toBe(401);
    expectErrorShape(await none.json(), 'UNAUTHENTICATED');
    const basic = await fetch(`${svc.baseUrl}/v1/pdf/status/x`, { headers: { authorization: 'Basic abc' } });
    expect(basic.status).toBe(401);
    const unknown = await apiClient(svc.baseUrl, 'prk_nope').post('/v1/pdf/sync', { templateId });
    expect(unknown.status).toBe(401);
    expectErrorShape(unknown.json, 'UNAUTHENTICATED');
  });

  it('publishes its OpenAPI document without a key', async () => {
    const res = await fetch(`${svc.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/pdf/sync',
        '/v1/pdf/async',
        '/v1/html-to-pdf/async',
        '/v1/pdf/status/{requestId}',
        '/v1/templates/preview',
        '/v1/assets',
        '/v1/integration/templates',
      ]),
    );
  });

  // Once more on a socket error: after a long step the pooled keep-alive connection may be closed by
  // the server just as it is reused ("other side closed"); a fresh one answers.
  const documentOf = async () => {
    const get = () => fetch(`${svc.baseUrl}/openapi.json`);
    const res = await get().catch(get);
    return (await res.json()) as Document;
  };

  // The document the running service serves: valid, every documented operation answered by a route
  // (never the "No such endpoint." of an unrouted path), its docs page working without the network, and
  // a client generated from it with openapi-typescript compiling and running the README's first calls.
  it('its OpenAPI document is valid OpenAPI 3.1', async () => {
    const doc = await documentOf();
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('every operation of its OpenAPI document is served, and an undocumented path is not', async () => {
    const doc = await documentOf();
    const unserved: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const url = svc.baseUrl + path.replace(/\{[^}]+\}/g, 'x');
        const scheme = JSON.stringify(op.security ?? []);
        const token = scheme.includes('adminToken') ? svc.adminToken : svc.apiKey;
        const body = method === 'post' || method === 'put' ? '{}' : undefined;
        const res = await fetch(url, {
          method: method.toUpperCase(),
          headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body } : {}),
        });
        const text = await res.text();
        if (text.includes('No such endpoint.')) unserved.push(`${method.toUpperCase()} ${path} (${op.operationId})`);
      }
    }
    expect(unserved).toEqual([]);
    const res = await fetch(`${svc.baseUrl}/v1/not-an-endpoint`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('No such endpoint.');
  });

  it('serves an API docs page whose scripts and styles come from the service itself', async () => {
    const res = await fetch(`${svc.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const a = await fetch(new URL(asset, `${svc.baseUrl}/docs`));
      expect(a.status, asset).toBe(200);
      expect((await a.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
    const init = await (await fetch(`${svc.baseUrl}/docs/assets/init.js`)).text();
    expect(init).toContain("url: 'openapi.json'");
    expect(init).toContain('validatorUrl: null'); // no call to the online validator
    expect((await fetch(`${svc.baseUrl}/docs/assets/nope.js`)).status).toBe(404);
  });

  it("a client generated with openapi-typescript (default options) compiles and runs the README's first calls", async () => {
    const types = astToString(await openapiTS(new URL(`${svc.baseUrl}/openapi.json`)));
    // Under the root node_modules, so the client resolves openapi-fetch like a project would.
    await mkdir(join(root, 'node_modules', '.cache'), { recursive: true });
    const dir = await mkdtemp(join(root, 'node_modules', '.cache', 'pressroom-openapi-'));
    try {
      await writeFile(join(dir, 'api.d.ts'), types);
      await writeFile(
        join(dir, 'client.ts'),
        `import createClient from 'openapi-fetch';
import type { paths } from './api.d.ts';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL, headers: { Authorization: \`Bearer \${process.env.KEY}\` } });

// README, "A first render": store a template, render it synchronously.
const created = await client.POST('/v1/templates', { body: { name: 'hello', content: '<h1>Hello <%= it.name %></h1>' } });
if (!created.data) throw new Error(JSON.stringify(created.error));
const templateId: string = created.data.templateId;
const rendered = await client.POST('/v1/pdf/sync', { body: { templateId, data: { name: 'Ada' } } });
if (rendered.response.status !== 200 || !rendered.data || !('signedUrl' in rendered.data)) throw new Error(JSON.stringify(rendered.error));
const signedUrl: string = rendered.data.signedUrl;
const executionTime: string = rendered.data.metadata.executionTime;
const status = await client.GET('/v1/pdf/status/{requestId}', { params: { path: { requestId: rendered.response.headers.get('x-request-id') ?? '' } } });
console.log(JSON.stringify({ signedUrl, executionTime, renderStatus: status.data?.renderStatus }));
`,
      );
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            allowImportingTsExtensions: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: ['client.ts'],
        }),
      );
      await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      const tsc = await run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(dir, 'tsconfig.json')]).catch(
        (e: { stdout: string }) => ({ stdout: e.stdout, failed: true }),
      );
      expect(tsc.stdout).toBe('');
      const out = await run(join(root, 'node_modules', '.bin', 'tsx'), [join(dir, 'client.ts')], {
        env: { ...process.env, BASE_URL: svc.baseUrl, KEY: svc.apiKey },
      });
      const result = JSON.parse(out.stdout) as { signedUrl: string; renderStatus: string };
      expect(result.renderStatus).toBe('SUCCESS');
      const pdf = await fetch(result.signedUrl);
      expect(pdf.status).toBe(200);
      expect(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('401 on the admin API with a tenant key', async () => {
    const res = await svc.api.post('/admin/v1/tenants', { name: 'x', plan: 'high' });
    expect(res.status).toBe(401);
  });

  it('400 for malformed JSON', async () => {
    const res = await svc.api.call('POST', '/v1/pdf/sync', '{"templateId": ', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expectErrorShape(res.json, 'MALFORMED_JSON');
  });

  it('400 naming each bad field', async () => {
    const res = await svc.api.post('/v1/pdf/async', { convertToImage: 'yes', colour: 'red', webhook: 'not a url' });
    expect(res.status).toBe(400);
    expectErrorShape(res.json, 'VALIDATION_FAILED');
    const fields = (res.json.error.details as { field: string }[]).map((d) => d.field).sort();
    // An unknown field is not refused on a render endpoint (the real API's clients send such), only named.
    expect(fields).toEqual(['convertToImage', 'templateId', 'webhook']);
    expect(res.headers.get('pressroom-ignored-fields')).toBe('colour');
  });

  it('400 for a body that is not an object', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/sync', [1, 2]);
    expect(res.status).toBe(400);
    expectErrorShape(res.json, 'VALIDATION_FAILED');
  });

  it('400 for s3_key without s3_bucket, and for a key that climbs out of its folder', async () => {
    const alone = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', s3_key: 'a/b' });
    expect(alone.status).toBe(400);
    expect(alone.json.error.details).toEqual([{ field: 's3_key', message: expect.any(String) }]);
    for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'bad\u0001key']) {
      const res = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', s3_bucket: 'any', s3_key: key });
      expect(res.status, key).toBe(400);
      expect(res.json.error.details[0].field).toBe('s3_key');
    }
  });

  it('400 for an S3 connection id the tenant does not have', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', s3_bucket: 'nope' });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toEqual([{ field: 's3_bucket', message: expect.any(String) }]);
  });

  it('403 for custom S3 storage below the high plan', async () => {
    const res = await other.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', s3_bucket: 'archive' });
    expect(res.status).toBe(403);
    expectErrorShape(res.json, 'PLAN_FORBIDS_CUSTOM_S3');
  });

  it('404 for an unknown template, an unknown request id, and an unknown path', async () => {
    const t = await svc.api.post('/v1/pdf/sync', { templateId: 'tpl_missing', data: {} });
    expect(t.status).toBe(404);
    expectErrorShape(t.json, 'NOT_FOUND');
    const s = await svc.api.get('/v1/pdf/status/019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10');
    expect(s.status).toBe(404);
    expectErrorShape(s.json, 'NOT_FOUND');
    const p = await svc.api.get('/v1/nothing-here');
    expect(p.status).toBe(404);
    expectErrorShape(p.json, 'NOT_FOUND');
  });

  it('413 above the body limit', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/sync', { html: 'x'.repeat(70_000) });
    expect(res.status).toBe(413);
    expectErrorShape(res.json, 'PAYLOAD_TOO_LARGE');
  });

  it('415 for a body that is not JSON', async () => {
    const res = await svc.api.call('POST', '/v1/html-to-pdf/sync', 'html=<p>x</p>', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(415);
    expectErrorShape(res.json, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it("isolates tenants: another tenant's render and template are 404, exactly like unknown ones", async () => {
    const accepted = await svc.api.post('/v1/pdf/async', { templateId, data: { x: 1 }, webhook: 'http://127.0.0.1:9/unused' });
    expect(accepted.status).toBe(200);
    const mine = await svc.api.get(`/v1/pdf/status/${accepted.json.requestId}`);
    expect(mine.status).toBe(200);
    const theirs = await other.get(`/v1/pdf/status/${accepted.json.requestId}`);
    expect(theirs.status).toBe(404);
    const unknown = await other.get('/v1/pdf/status/019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10');
    expect(theirs.json.error.code).toBe(unknown.json.error.code);
    expect((await other.get(`/v1/templates/${templateId}`)).status).toBe(404);
    expect((await other.post('/v1/pdf/sync', { templateId, data: {} })).status).toBe(404);
    expect((await other.get('/v1/templates')).json.templates).toEqual([]);
  });

  it('changes nothing on bad input: a refused request leaves no render behind', async () => {
    const before = (await svc.api.get('/v1/templates')).json.templates.length;
    await svc.api.post('/v1/templates', { name: '' });
    expect((await svc.api.get('/v1/templates')).json.templates.length).toBe(before);
  });
});

describe('embedded profile: first start without PRESSROOM_API_KEY, private webhooks refused', () => {
  let svc: Svc;
  let printedAtFirstStart: string[];
  const printedKeys = () => svc.app.output.flatMap((line) => /^\s+(prs_live_[A-Za-z0-9]{46})\s*$/.exec(line)?.[1] ?? []);

  beforeAll(async () => {
    svc = await startEmbedded(
      { PRESSROOM_ALLOW_PRIVATE_WEBHOOKS: 'false', PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS: 'false' },
      { withApiKey: false },
    );
    printedAtFirstStart = printedKeys();
  });
  afterAll(async () => {
    await svc?.app.stop();
  });

  it('prints a development key once, which works, and prints none on the next start', async () => {
    expect(printedAtFirstStart).toHaveLength(1);
    // stdout stays a JSON stream: every line parses, the key is only on stderr, and a line says one was made.
    const stdout = svc.app.stdout.map((line) => JSON.parse(line) as { msg: string; tenantId?: string });
    expect(stdout.filter((l) => /development API key created/.test(l.msg))).toEqual([
      expect.objectContaining({ level: 'info', tenantId: 'default' }),
    ]);
    expect(svc.app.stdout.join('\n')).not.toContain(printedAtFirstStart[0]);
    const dev = apiClient(svc.baseUrl, printedAtFirstStart[0]!);
    expect((await dev.get('/v1/templates')).status).toBe(200);
    await svc.app.stop();
    await svc.app.start();
    expect(printedKeys()).toEqual([]);
    expect((await dev.get('/v1/templates')).status).toBe(200);
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://169.254.169.254/latest',
    'https://10.0.0.8/hook',
    'http://[::1]/hook',
    // IPv6 forms that wrap loopback or metadata, and ranges that are not global unicast (issue 7)
    'https://[::7f00:1]/hook',
    'https://[::127.0.0.1]/hook',
    'https://[2002:7f00:1::1]/hook',
    'https://[2002:a9fe:a9fe::1]/latest',
    'https://[64:ff9b:1::a9fe:a9fe]/latest',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[fec0::1]/hook',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    'https://[2001:db8::1]/hook',
    'https://198.18.0.1/hook',
    'https://0177.0.0.1/hook',
  ])('refuses the webhook %s with 400', async (webhook) => {
    const dev = apiClient(svc.baseUrl, printedAtFirstStart[0]!);
    const res = await dev.post('/v1/html-to-pdf/async', { html: '<p>x</p>', webhook });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toEqual([{ field: 'webhook', message: expect.stringMatching(/loopback|private|resolve/) }]);
  });

  // Issue 7: tenant S3 endpoints are held to the same address policy as webhooks.
  it.each([
    'http://127.0.0.1:19000',
    'http://169.254.169.254',
    'https://[2002:a9fe:a9fe::1]',
    'https://[::ffff:0:7f00:1]',
    'https://[fd00:ec2::254]',
    'https://0x7f.1',
  ])('refuses a tenant S3 connection to %s with 400, and stores nothing', async (endpoint) => {
    const connectionId = `c${Buffer.from(endpoint).toString('hex').slice(-12)}`;
    const res = await svc.admin.post('/admin/v1/tenants/default/s3-connections', {
      connectionId,
      bucket: 'archive',
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      accessKeyId: 'k',
      secretAccessKey: 's',
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        { field: 'endpoint', message: expect.stringMatching(/must not point to a loopback, private, link-local or metadata address/) },
      ],
    });
    const dev = apiClient(svc.baseUrl, printedAtFirstStart[0]!);
    const render = await dev.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', s3_bucket: connectionId });
    expect(render.status).toBe(400);
    expect(render.json.error.details).toEqual([{ field: 's3_bucket', message: 'is not one of your S3 connections' }]);
  });

  // Issue 11 point 2, the tenant's own route: with the operator's switch off, an endpoint on
  // loopback or a private address is refused even when a working S3 server answers there.
  it('refuses a tenant’s own S3 connection (/v1/s3-connections) to the working S3 server on loopback, or a private address, naming the field, and registers nothing', async () => {
    const tenantApi = apiClient(svc.baseUrl, printedAtFirstStart[0]!);
    const bucket = `closed-${randomBytes(4).toString('hex')}`;
    await createBucket(inject('S3_ENDPOINT'), bucket);
    const connection = { bucket, region: 'us-east-1', forcePathStyle: true, ...s3Credentials };
    const port = new URL(inject('S3_ENDPOINT')).port;
    for (const [connectionId, endpoint] of [
      ['loopback', `http://127.0.0.1:${port}`],
      ['localhost', `http://localhost:${port}`],
      ['private', 'http://192.168.10.20:9000'],
    ] as const) {
      const res = await tenantApi.post('/v1/s3-connections', { ...connection, connectionId, endpoint });
      expect(res.status, `${endpoint}: ${res.text}`).toBe(400);
      expect(res.json.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [
          { field: 'endpoint', message: expect.stringMatching(/must not point to a loopback, private, link-local or metadata address/) },
        ],
      });
      expect((await tenantApi.get(`/v1/s3-connections/${connectionId}`)).status).toBe(404);
    }
    expect((await tenantApi.get('/v1/s3-connections')).json.connections).toEqual([]);
    // No test write reached the bucket
    expect(await listKeys(inject('S3_ENDPOINT'), bucket)).toEqual([]);
  });
});
