import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../support/embedded-service.ts';
import { uploadAsset, apiClient, download, type ApiClient } from '../support/api-client.ts';
import { isPdf, isPng, pdfImages, pdfInfo, pdfText } from '../support/pdf-tools.ts';
import { solidPng } from '../support/fixtures.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

async function pdfOf(res: { status: number; json: { signedUrl: string } }): Promise<Uint8Array> {
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return (await download(res.json.signedUrl)).bytes;
}

/** Bytes of a preview answer (the body is the file itself). */
async function previewBytes(baseUrl: string, apiKey: string, path: string, body: unknown) {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, contentType: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe('embedded profile: templates people can build real documents with (API side)', () => {
  let svc: Svc;
  let other: ApiClient;

  beforeAll(async () => {
    svc = await startEmbedded({ PRESSROOM_SYNC_TIMEOUT_MS: '20000' });
    await svc.admin.post('/admin/v1/tenants', { tenantId: 'initech', name: 'Initech', plan: 'standard' });
    const key = await svc.admin.post('/admin/v1/tenants/initech/keys', { label: 'e2e' });
    other = apiClient(svc.baseUrl, key.json.apiKey);
  });
  afterAll(async () => {
    await svc?.app.stop();
  });

  it('keeps every version immutable, lists them, renders the latest or a pinned one, and survives a restart', async () => {
    // Given a template revised twice
    const v1 = await svc.api.post('/v1/templates', { name: 'letter', content: '<p>Version one for <%= it.who %></p>' });
    expect(v1.status).toBe(201);
    expect(v1.json).toMatchObject({ version: 1, latestVersion: 1, variables: { source: 'inferred', names: ['who'] } });
    const id = v1.json.templateId as string;
    expect(
      (await svc.api.put(`/v1/templates/${id}`, { name: 'letter', content: '<p>Version two for <%= it.who %></p>' })).json.version,
    ).toBe(2);
    const v3 = await svc.api.put(`/v1/templates/${id}`, { name: 'letter v3', content: '<p>Version three for <%= it.who %></p>' });
    expect(v3.json).toMatchObject({ version: 3, latestVersion: 3, name: 'letter v3' });

    // Then the versions are listed, each readable as it was written
    const versions = await svc.api.get(`/v1/templates/${id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.json.latestVersion).toBe(3);
    expect(versions.json.versions.map((v: { version: number; name: string }) => [v.version, v.name])).toEqual([
      [1, 'letter'],
      [2, 'letter'],
      [3, 'letter v3'],
    ]);
    expect((await svc.api.get(`/v1/templates/${id}/versions/1`)).json.content).toBe('<p>Version one for <%= it.who %></p>');
    expect((await svc.api.get(`/v1/templates/${id}/versions/9`)).status).toBe(404);

    // When rendering without a pin, then with templateVersion 1
    expect(await pdfText(await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: id, data: { who: 'Ada' } })))).toContain(
      'Version three for Ada',
    );
    const pinned = await svc.api.post('/v1/pdf/sync', { templateId: id, templateVersion: 1, data: { who: 'Ada' } });
    expect(await pdfText(await pdfOf(pinned))).toContain('Version one for Ada');
    expect((await svc.api.post('/v1/pdf/sync', { templateId: id, templateVersion: 7, data: { who: 'x' } })).status).toBe(404);

    // And the render records the version it used: its status says so (in headers; the body keeps the contract's shape)
    const requestId = pinned.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const status = await svc.api.get(`/v1/pdf/status/${requestId}`);
    expect(status.json.renderStatus).toBe('SUCCESS');
    expect(status.headers.get('x-template-id')).toBe(id);
    expect(status.headers.get('x-template-version')).toBe('1');

    // And after a crash and restart (the view is rebuilt from the log) everything is still there
    await svc.app.kill();
    await svc.app.start();
    const after = await svc.api.get(`/v1/templates/${id}/versions`);
    expect(after.json).toEqual(versions.json);
    expect((await svc.api.get(`/v1/templates/${id}`)).json).toEqual((await svc.api.get(`/v1/templates/${id}/versions/3`)).json);

    // And a deleted template is gone, versions too
    expect((await svc.api.del(`/v1/templates/${id}`)).status).toBe(204);
    expect((await svc.api.get(`/v1/templates/${id}`)).status).toBe(404);
    expect((await svc.api.get(`/v1/templates/${id}/versions`)).status).toBe(404);
    expect((await svc.api.post('/v1/pdf/sync', { templateId: id, templateVersion: 1, data: { who: 'x' } })).status).toBe(404);
  });

  it('refuses missing or mistyped variables at the door with one details entry per variable', async () => {
    const inferred = await svc.api.post('/v1/templates', {
      name: 'order',
      content:
        '<h1><%= it.customer.name %></h1><% it.lines.forEach(function (l) { %><p><%= l.sku %></p><% }) %><% if (it.note) { %><%= it.note %><% } %>',
    });
    expect(inferred.json.variables.names).toEqual(['customer', 'customer.name', 'lines[]', 'lines[].sku', 'note']);

    const none = await svc.api.post('/v1/pdf/sync', { templateId: inferred.json.templateId });
    expect(none.status).toBe(400);
    expect(none.json.error.code).toBe('VALIDATION_FAILED');
    expect(none.json.error.details).toEqual([
      { field: 'data.customer', message: 'is required' },
      { field: 'data.lines', message: 'is required' },
    ]);
    const wrong = await svc.api.post('/v1/pdf/async', {
      templateId: inferred.json.templateId,
      data: { customer: 'Ada', lines: [{ sku: 'A' }, {}] },
      webhook: 'http://127.0.0.1:9/never',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.details).toEqual([
      { field: 'data.customer', message: 'must be an object' },
      { field: 'data.lines.1.sku', message: 'is required' },
    ]);

    // A declared schema wins over inference and checks types
    const declared = await svc.api.post('/v1/templates', {
      name: 'total',
      content: '<p><%= it.total %></p>',
      dataSchema: {
        type: 'object',
        properties: { total: { type: 'number' }, currency: { type: 'string' } },
        required: ['total', 'currency'],
      },
    });
    expect(declared.status).toBe(201);
    expect(declared.json.variables).toMatchObject({ source: 'declared', names: ['currency', 'total'] });
    const typed = await svc.api.post('/v1/pdf/sync', { templateId: declared.json.templateId, data: { total: '12' } });
    expect(typed.status).toBe(400);
    expect(typed.json.error.details).toEqual([
      { field: 'data.currency', message: 'is required' },
      { field: 'data.total', message: 'must be a number' },
    ]);
    expect(
      await pdfText(
        await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: declared.json.templateId, data: { total: 12, currency: 'EUR' } })),
      ),
    ).toContain('12');

    // A template without variables needs no data
    const plain = await svc.api.post('/v1/templates', { name: 'plain', content: '<p>No variables here</p>' });
    expect(await pdfText(await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: plain.json.templateId })))).toContain(
      'No variables here',
    );

    // An invalid declared schema is refused when the template is written
    const bad = await svc.api.post('/v1/templates', {
      name: 'bad',
      content: '<p/>',
      dataSchema: { type: 'object', properties: { a: { type: 'strnig' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details).toEqual([expect.objectContaining({ field: 'dataSchema.properties.a.type' })]);
  });

  it('stores page setup with the template and lets pdfParams override it per request (Letter landscape is 792 x 612)', async () => {
    const t = await svc.api.post('/v1/templates', {
      name: 'setup',
      content: '<p>Page setup <%= it.n %></p>',
      header: '<div>Header <%= it.n %></div>',
      footer: '<div>Footer</div>',
      pdfParams: { format: 'A5', margin: { top: '15mm', bottom: '15mm' }, printBackground: true },
      ready: { selector: 'p' },
    });
    expect(t.status, JSON.stringify(t.json)).toBe(201);
    expect(t.json).toMatchObject({
      header: '<div>Header <%= it.n %></div>',
      footer: '<div>Footer</div>',
      pdfParams: { format: 'A5', margin: { top: '15mm', bottom: '15mm' } },
      ready: { selector: 'p' },
    });

    // Out of range and cross-field problems: 400 naming the field, on every render endpoint
    const scale = await svc.api.post('/v1/pdf/sync', { templateId: t.json.templateId, data: { n: 1 }, pdfParams: { scale: 3 } });
    expect(scale.status).toBe(400);
    expect(scale.json.error.details).toEqual([expect.objectContaining({ field: 'pdfParams.scale' })]);
    const unit = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', pdfParams: { margin: { left: '12 parsecs' } } });
    expect(unit.json.error.details).toEqual([expect.objectContaining({ field: 'pdfParams.margin.left' })]);
    const tiny = await svc.api.post('/v1/html-to-pdf/async', {
      html: '<p>x</p>',
      webhook: 'http://127.0.0.1:9/x',
      pdfParams: { width: '0.1in' },
    });
    expect(tiny.json.error.details).toEqual([{ field: 'pdfParams.width', message: 'must be at least 0.25in (6.35mm)' }]);
    const format = await svc.api.post('/v1/pdf/sync', { templateId: t.json.templateId, data: { n: 1 }, pdfParams: { format: 'B5' } });
    expect(format.json.error.details).toEqual([expect.objectContaining({ field: 'pdfParams.format' })]);
    const badTemplate = await svc.api.post('/v1/templates', { name: 'x', content: '<p/>', pdfParams: { pageRanges: '3-1' } });
    expect(badTemplate.json.error.details).toEqual([expect.objectContaining({ field: 'pdfParams.pageRanges' })]);

    // The request overrides the template's A5 (layout: needs the renderer side of issue 3)
    const letter = await pdfOf(
      await svc.api.post('/v1/pdf/sync', {
        templateId: t.json.templateId,
        data: { n: 2 },
        pdfParams: { format: 'Letter', landscape: true },
      }),
    );
    expect(await pdfText(letter)).toContain('Page setup 2');
    expect((await pdfInfo(letter))['Page size']).toMatch(/^792(\.\d+)? x 612(\.\d+)? pts/);
    const html = await pdfOf(
      await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>html letter</p>', pdfParams: { format: 'Letter', landscape: true } }),
    );
    expect((await pdfInfo(html))['Page size']).toMatch(/^792(\.\d+)? x 612(\.\d+)? pts/);
  });

  it('uploads assets per tenant, lists, reads and deletes them, and a render uses an uploaded image', async () => {
    const png = solidPng(40, 20);
    const up = await uploadAsset(svc.api, 'logo.png', png);
    expect(up.status, JSON.stringify(up.json)).toBe(201);
    expect(up.json).toMatchObject({
      name: 'logo.png',
      contentType: 'image/png',
      bytes: png.byteLength,
      url: 'https://assets.pressroom.invalid/logo.png',
    });

    expect((await svc.api.get('/v1/assets')).json.assets.map((a: { name: string }) => a.name)).toEqual(['logo.png']);
    expect((await svc.api.get('/v1/assets/logo.png')).json.sha256).toMatch(/^[0-9a-f]{64}$/);
    const content = await fetch(`${svc.baseUrl}/v1/assets/logo.png/content`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(content.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await content.arrayBuffer()).equals(Buffer.from(png))).toBe(true);

    // Refused: a type outside the list, bytes that are not what they claim, a bad name, too big
    const html = Buffer.from('<html>').toString('base64');
    expect((await svc.api.post('/v1/assets', { name: 'x.html', contentType: 'text/html', dataBase64: html })).json.error.details).toEqual([
      expect.objectContaining({ field: 'contentType' }),
    ]);
    expect((await svc.api.post('/v1/assets', { name: 'fake.png', contentType: 'image/png', dataBase64: html })).json.error.details).toEqual(
      [{ field: 'dataBase64', message: 'does not look like a image/png file' }],
    );
    expect((await svc.api.post('/v1/assets', { name: '../up.png', contentType: 'image/png', dataBase64: html })).status).toBe(400);

    // Another tenant sees none of it
    expect((await other.get('/v1/assets')).json.assets).toEqual([]);
    expect((await other.get('/v1/assets/logo.png')).status).toBe(404);
    expect((await other.del('/v1/assets/logo.png')).status).toBe(404);

    // A render references it by its reserved URL (served to the page: needs the renderer side of issue 3)
    const t = await svc.api.post('/v1/templates', {
      name: 'with logo',
      content: '<p>Logo below</p><img src="https://assets.pressroom.invalid/logo.png" width="40" height="20"><p>Logo above</p>',
    });
    const pdf = await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: t.json.templateId }));
    expect(await pdfText(pdf)).toContain('Logo below');
    expect(await pdfImages(pdf)).toEqual([expect.objectContaining({ page: 1, width: 40, height: 20 })]);

    expect((await svc.api.del('/v1/assets/logo.png')).status).toBe(204);
    expect((await svc.api.get('/v1/assets/logo.png')).status).toBe(404);
  });

  it('previews a stored template and unsaved sources, answering the PDF or PNG bytes with the same validation', async () => {
    const t = await svc.api.post('/v1/templates', { name: 'preview me', content: '<h1>Preview of <%= it.title %></h1>' });
    const pdf = await previewBytes(svc.baseUrl, svc.apiKey, `/v1/templates/${t.json.templateId}/preview`, { data: { title: 'stored' } });
    expect(pdf.status).toBe(200);
    expect(pdf.contentType).toBe('application/pdf');
    expect(isPdf(pdf.bytes)).toBe(true);
    expect(await pdfText(pdf.bytes)).toContain('Preview of stored');

    const png = await previewBytes(svc.baseUrl, svc.apiKey, '/v1/templates/preview', {
      content: '<h1>Unsaved <%= it.title %></h1>',
      data: { title: 'draft' },
      convertToImage: true,
    });
    expect(png.status).toBe(200);
    expect(png.contentType).toBe('image/png');
    expect(isPng(png.bytes)).toBe(true);

    const missing = await svc.api.post('/v1/templates/preview', { content: '<h1><%= it.title %></h1>' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.details).toEqual([{ field: 'data.title', message: 'is required' }]);
    const badParams = await svc.api.post(`/v1/templates/${t.json.templateId}/preview`, { data: { title: 'x' }, pdfParams: { scale: 0 } });
    expect(badParams.json.error.details).toEqual([expect.objectContaining({ field: 'pdfParams.scale' })]);
    expect((await svc.api.post('/v1/templates/tpl_nope/preview', {})).status).toBe(404);
    const failing = await svc.api.post('/v1/templates/preview', { content: '<% throw new Error("nope") %>' });
    expect(failing.status).toBe(422);
    expect(failing.json.error.code).toBe('TEMPLATE_ERROR');
  });

  it('serves the compatibility endpoints: the tenant templates (id, name, updated time) and their variables', async () => {
    const t = await svc.api.post('/v1/templates', {
      name: 'compat',
      content: '<p><%= it.invoice.number %></p><% it.items.forEach(function (i) { %><%= i.qty %><% }) %>',
    });
    const list = await svc.api.get('/v1/integration/templates');
    expect(list.status).toBe(200);
    expect(list.json.templates).toContainEqual({
      id: t.json.templateId,
      displayName: 'compat',
      name: 'compat',
      createdAt: t.json.createdAt,
      updatedAt: t.json.updatedAt,
      version: 1,
    });
    const vars = await svc.api.get(`/v1/integration/templates/${t.json.templateId}/variables`);
    expect(vars.status).toBe(200);
    expect(vars.json).toMatchObject({
      id: t.json.templateId,
      version: 1,
      variables: [
        { name: 'invoice', type: 'object', required: true },
        { name: 'invoice.number', type: 'any', required: true },
        { name: 'items[]', type: 'array', required: true },
        { name: 'items[].qty', type: 'any', required: true },
      ],
    });

    // Tenant isolation
    expect((await other.get('/v1/integration/templates')).json).toEqual({ templates: [] });
    expect((await other.get(`/v1/integration/templates/${t.json.templateId}`)).status).toBe(404);
    expect((await other.get(`/v1/integration/templates/${t.json.templateId}/variables`)).status).toBe(404);
    expect((await other.get(`/v1/templates/${t.json.templateId}/versions`)).status).toBe(404);
    expect((await other.put(`/v1/templates/${t.json.templateId}`, { name: 'stolen', content: '<p/>' })).status).toBe(404);
    expect((await other.post(`/v1/templates/${t.json.templateId}/preview`, {})).status).toBe(404);
    expect((await svc.api.get(`/v1/templates/${t.json.templateId}`)).json.name).toBe('compat');
  });
});
