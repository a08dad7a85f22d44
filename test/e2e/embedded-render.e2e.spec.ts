import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { waitFor } from '@pressroom/testing';
import { startEmbedded } from '../support/embedded-service.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { download } from '../support/api-client.ts';
import { isPdf, isPng, pdfInfo, pdfText } from '../support/pdf-tools.ts';
import { greetingTemplate, invoiceFixture, slowHtml } from '../support/fixtures.ts';
import { createBucket, listKeys, s3Credentials } from '../support/s3.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

describe('embedded profile, end to end over HTTP', () => {
  let svc: Svc;
  const receiver = new WebhookReceiver();
  let templateId: string;

  beforeAll(async () => {
    await receiver.start();
    // A short sync wait, so a deliberately slow render shows the 202 fallback quickly.
    svc = await startEmbedded({ PRESSROOM_SYNC_TIMEOUT_MS: '5000' });
    const created = await svc.api.post('/v1/templates', { name: 'greeting', content: greetingTemplate });
    templateId = created.json.templateId;
  });
  afterAll(async () => {
    await svc?.app.stop();
    await receiver.stop();
  });

  it('answers health and readiness without a key', async () => {
    expect((await fetch(`${svc.baseUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${svc.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
  });

  it('manages templates per tenant: create, list, read, revise, delete', async () => {
    const created = await svc.api.post('/v1/templates', { name: 'scratch', content: '<p><%= it.x %></p>' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'scratch', version: 1 });
    const id = created.json.templateId as string;

    const list = await svc.api.get('/v1/templates');
    expect(list.status).toBe(200);
    expect(list.json.templates.map((t: { templateId: string }) => t.templateId)).toContain(id);

    const revised = await svc.api.put(`/v1/templates/${id}`, { name: 'scratch 2', content: '<p>v2 <%= it.x %></p>' });
    expect(revised.json).toMatchObject({ templateId: id, name: 'scratch 2', version: 2 });
    expect((await svc.api.get(`/v1/templates/${id}`)).json.content).toBe('<p>v2 <%= it.x %></p>');

    expect((await svc.api.del(`/v1/templates/${id}`)).status).toBe(204);
    const gone = await svc.api.get(`/v1/templates/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json.error.code).toBe('NOT_FOUND');
  });

  it('renders a template synchronously: 200 with a signed PDF link and metadata, data HTML-escaped', async () => {
    const res = await svc.api.post('/v1/pdf/sync', { templateId, data: { name: '<b>Ada</b>', items: ['one', 'two'] } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['metadata', 'signedUrl']);
    expect(res.json.metadata.executionTime).toMatch(/^\d+(\.\d+)? seconds$/);
    expect(res.json.metadata.fileSize).toMatch(/^\d+(\.\d+)? kB$/);
    expect(new URL(res.json.signedUrl).pathname).toMatch(/\.pdf$/);

    const file = await download(res.json.signedUrl);
    expect(file.status).toBe(200);
    expect(file.contentType).toBe('application/pdf');
    expect(isPdf(file.bytes)).toBe(true);
    const text = await pdfText(file.bytes);
    expect(text).toContain('Hello <b>Ada</b>');
    expect(text).toContain('Item two');
    expect(Number(res.json.metadata.fileSize.split(' ')[0])).toBeCloseTo(file.bytes.byteLength / 1000, 1);
  });

  it('writes the request metadata into the PDF info dictionary', async () => {
    const metadata = {
      title: 'Invoice 42',
      author: 'Billing',
      subject: 'June',
      keywords: ['invoice', 'june'],
      creator: 'ERP',
      producer: 'Acme',
    };
    const res = await svc.api.post('/v1/pdf/sync', { templateId, data: { name: 'x', items: [] }, metadata });
    expect(res.status).toBe(200);
    const info = await pdfInfo((await download(res.json.signedUrl)).bytes);
    expect(info).toMatchObject({ Title: 'Invoice 42', Author: 'Billing', Subject: 'June', Creator: 'ERP', Producer: 'Acme' });
    expect(info.Keywords).toContain('invoice');
  });

  it('produces a PNG of the same layout when convertToImage is true', async () => {
    const res = await svc.api.post('/v1/pdf/sync', { templateId, data: { name: 'Png', items: ['a'] }, convertToImage: true });
    expect(res.status).toBe(200);
    expect(new URL(res.json.signedUrl).pathname).toMatch(/\.PNG$/);
    const file = await download(res.json.signedUrl);
    expect(file.contentType).toBe('image/png');
    expect(isPng(file.bytes)).toBe(true);
  });

  it('renders the shared two-page invoice from raw HTML', async () => {
    const { html } = invoiceFixture();
    const res = await svc.api.post('/v1/html-to-pdf/sync', { html });
    expect(res.status).toBe(200);
    const bytes = (await download(res.json.signedUrl)).bytes;
    const info = await pdfInfo(bytes);
    expect(info.Pages).toBe('2');
    expect(info['Page size']).toMatch(/^59[45]\.\d+ x 841\.\d+ pts \(A4\)/);
    expect(await pdfText(bytes)).toContain('INV-2024-004817');
  });

  it('refuses a tampered or truncated signed link with 403 and no file bytes', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>secret</p>' });
    const url = new URL(res.json.signedUrl);
    const sig = url.searchParams.get('signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace(/\.pdf$/, '.PNG');
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    for (const bad of [tampered, otherKey, longer]) {
      const r = await download(bad.toString());
      expect(r.status).toBe(403);
      expect(isPdf(r.bytes)).toBe(false);
    }
    expect((await download(url.toString())).status).toBe(200);
  });

  it('answers 202 with a status URL when the render outlives the sync wait, and the status ends SUCCESS', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/sync', { html: slowHtml(8000, 'Queued document') });
    expect(res.status).toBe(202);
    expect(Object.keys(res.json).sort()).toEqual(['message', 'requestId', 'statusUrl']);
    expect(res.json.statusUrl).toBe(`${svc.baseUrl}/v1/pdf/status/${res.json.requestId}`);
    expect(res.json.message).toMatch(/queue/i);

    const ongoing = await svc.api.get(new URL(res.json.statusUrl).pathname);
    expect(ongoing.status).toBe(200);
    expect(ongoing.json).toEqual({ requestId: res.json.requestId, renderStatus: 'ONGOING', signedUrl: '', metadata: {} });

    const done = await waitFor(
      async () => {
        const s = await svc.api.get(new URL(res.json.statusUrl).pathname);
        return s.json.renderStatus === 'SUCCESS' ? s : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'the queued render to finish' },
    );
    expect(done.json.metadata.fileSize).toMatch(/kB$/);
    expect(await pdfText((await download(done.json.signedUrl)).bytes)).toContain('Queued document');
  });

  it('renders asynchronously and POSTs the result to the webhook', async () => {
    const res = await svc.api.post('/v1/pdf/async', {
      templateId,
      data: { name: 'Async', items: ['z'] },
      webhook: receiver.url('/hook-ok'),
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['requestId']);

    const status = await svc.api.get(`/v1/pdf/status/${res.json.requestId}`);
    expect(status.status).toBe(200);
    expect(['ONGOING', 'SUCCESS']).toContain(status.json.renderStatus);

    const call = await receiver.waitForCall('/hook-ok');
    expect(call.headers['content-type']).toBe('application/json');
    const body = call.body as { requestId: string; renderStatus: string; signedUrl: string; metadata: Record<string, string> };
    expect(body).toMatchObject({ requestId: res.json.requestId, renderStatus: 'SUCCESS' });
    expect(body.metadata.executionTime).toMatch(/seconds$/);
    expect(await pdfText((await download(body.signedUrl)).bytes)).toContain('Hello Async');

    const after = await svc.api.get(`/v1/pdf/status/${res.json.requestId}`);
    expect(after.json.renderStatus).toBe('SUCCESS');
    expect(isPdf((await download(after.json.signedUrl)).bytes)).toBe(true);
  });

  it('reports a failed async render to the webhook and the status endpoint', async () => {
    // Missing variables are refused at the door (400); a template that throws fails in the render.
    const broken = await svc.api.post('/v1/templates', { name: 'broken', content: '<p><% throw new Error("broken on purpose") %></p>' });
    const res = await svc.api.post('/v1/pdf/async', { templateId: broken.json.templateId, data: {}, webhook: receiver.url('/hook-fail') });
    expect(res.status).toBe(200);
    const call = await receiver.waitForCall('/hook-fail');
    expect(call.body).toMatchObject({
      requestId: res.json.requestId,
      renderStatus: 'FAILED',
      signedUrl: '',
      metadata: {},
      error: { code: 'TEMPLATE_ERROR' },
    });
    const status = await svc.api.get(`/v1/pdf/status/${res.json.requestId}`);
    expect(status.json).toMatchObject({ renderStatus: 'FAILED', signedUrl: '', metadata: {}, error: { code: 'TEMPLATE_ERROR' } });
  });

  it('renders raw HTML asynchronously to a PNG', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/async', {
      html: '<h1>Async PNG</h1>',
      convertToImage: true,
      webhook: receiver.url('/hook-png'),
    });
    expect(res.status).toBe(200);
    const call = await receiver.waitForCall('/hook-png');
    const body = call.body as { signedUrl: string; renderStatus: string };
    expect(body.renderStatus).toBe('SUCCESS');
    expect(new URL(body.signedUrl).pathname).toMatch(/\.PNG$/);
    expect(isPng((await download(body.signedUrl)).bytes)).toBe(true);
  });

  it("stores into the tenant's own S3 bucket under s3_key when s3_bucket names a connection", async () => {
    const endpoint = inject('S3_ENDPOINT');
    const bucket = `archive-${randomBytes(4).toString('hex')}`;
    await createBucket(endpoint, bucket);
    const conn = await svc.admin.post('/admin/v1/tenants/default/s3-connections', {
      connectionId: 'archive',
      bucket,
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      ...s3Credentials,
    });
    expect(conn.status, JSON.stringify(conn.json)).toBe(201);
    expect(JSON.stringify(conn.json)).not.toContain(s3Credentials.secretAccessKey);

    const res = await svc.api.post('/v1/pdf/sync', {
      templateId,
      data: { name: 'S3', items: [] },
      s3_bucket: 'archive',
      s3_key: 'invoices/2026/inv-1',
    });
    expect(res.status).toBe(200);
    expect(await listKeys(endpoint, bucket)).toEqual(['invoices/2026/inv-1.pdf']);
    const file = await download(res.json.signedUrl);
    expect(file.status).toBe(200);
    expect(await pdfText(file.bytes)).toContain('Hello S3');

    const png = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>png</p>', convertToImage: true, s3_bucket: 'archive' });
    expect(png.status).toBe(200);
    expect((await listKeys(endpoint, bucket)).filter((k) => k.endsWith('.PNG'))).toHaveLength(1);
  });

  it('loses nothing accepted across a crash: an async request acknowledged before a SIGKILL completes after restart', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/async', { html: slowHtml(3000, 'Survivor'), webhook: receiver.url('/hook-restart') });
    expect(res.status).toBe(200);
    await svc.app.kill();
    await svc.app.start();
    const call = await receiver.waitForCall('/hook-restart', 90_000);
    expect(call.body).toMatchObject({ requestId: res.json.requestId, renderStatus: 'SUCCESS' });
    const status = await svc.api.get(`/v1/pdf/status/${res.json.requestId}`);
    expect(status.json.renderStatus).toBe('SUCCESS');
    expect(await pdfText((await download(status.json.signedUrl)).bytes)).toContain('Survivor');
    // Templates and keys survived too.
    expect((await svc.api.get(`/v1/templates/${templateId}`)).status).toBe(200);
  });
});
