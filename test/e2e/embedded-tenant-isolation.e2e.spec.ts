import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, download, type ApiClient } from '../support/api-client.ts';
import { pdfText } from '../support/pdf-tools.ts';
import { FRAMED_STORAGE_KINDS, PROBE_READY, probePageHtml, readerSvg, writerSvg } from '../support/storage-probe.ts';

// Issue 7, point 4, over HTTP: nothing of one tenant's render survives into another tenant's.
// The service has one warm page, so every render below runs on the page the previous one used.

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

async function tenant(svc: Svc, tenantId: string): Promise<ApiClient> {
  expect((await svc.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan: 'standard' })).status).toBe(201);
  const key = await svc.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'e2e' });
  expect(key.status).toBe(201);
  return apiClient(svc.baseUrl, key.json.apiKey as string);
}

/** Uploads `svg` as the tenant's asset probe.svg and stores a template that frames it. */
async function probeTemplate(api: ApiClient, svg: Uint8Array): Promise<string> {
  const asset = await api.post('/v1/assets', {
    name: 'probe.svg',
    contentType: 'image/svg+xml',
    dataBase64: Buffer.from(svg).toString('base64'),
  });
  expect(asset.status, asset.text).toBe(201);
  const tpl = await api.post('/v1/templates', { name: 'probe', content: probePageHtml('probe.svg'), ready: PROBE_READY });
  expect(tpl.status, tpl.text).toBe(201);
  return tpl.json.templateId as string;
}

async function renderedText(api: ApiClient, templateId: string): Promise<string> {
  const res = await api.post('/v1/pdf/sync', { templateId, data: {} });
  expect(res.status, res.text).toBe(200);
  const file = await download(res.json.signedUrl as string);
  return (await pdfText(file.bytes)).replace(/\s+/g, '');
}

describe('embedded profile: nothing of one tenant render survives into another tenant render', () => {
  let svc: Svc;
  let acme: ApiClient;
  let globex: ApiClient;
  let writer: string;
  let reader: string;

  beforeAll(async () => {
    svc = await startEmbedded({ PRESSROOM_RENDER_PAGES: '1' });
    acme = await tenant(svc, 'acme');
    globex = await tenant(svc, 'globex');
    writer = await probeTemplate(acme, writerSvg('ACME-SECRET'));
    reader = await probeTemplate(globex, readerSvg());
  });
  afterAll(async () => {
    await svc?.app.stop();
  });

  it.each(FRAMED_STORAGE_KINDS)("a tenant's scripted SVG asset cannot read the %s another tenant's SVG wrote", async (kind) => {
    // Given acme's template framed its scripted SVG asset, which wrote the storage kind
    expect(await renderedText(acme, writer)).toContain(kind);

    // When globex's template frames its own SVG under the same assets origin, on the same warm page
    const read = await renderedText(globex, reader);

    // Then the reader ran and found nothing there
    expect(read).toMatch(/^read:/);
    expect(read).toContain(`"${kind}":null`);
    expect(read).not.toContain('ACME-SECRET');
  });
});
