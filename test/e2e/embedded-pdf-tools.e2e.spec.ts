import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfNoodle } from 'pdfnoodle';
import { waitFor } from '@pressroom/testing';
import { startEmbedded } from '../support/embedded-service.ts';
import { download } from '../support/api-client.ts';
import { everyToolMetadataField, everyToolMetadataFieldInfo, imagePdf, textPdf } from '../support/pdf-fixtures.ts';
import { isPdf, pdfInfo, pdfPageText, pdfText } from '../support/pdf-tools.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The PDF tools (/v1/tools/*) on the embedded profile, driven by the official `pdfnoodle` SDK
 * unmodified (PDFNOODLE_BASE_URL points it at us), with real qpdf, Ghostscript and Chromium;
 * the files are checked with poppler. One service for the file.
 */
const MAX_UPLOAD = 3 * 1024 * 1024;
let svc: Awaited<ReturnType<typeof startEmbedded>>;
let sdk: PdfNoodle;
const hook = new WebhookReceiver();
/**
 * Made before the first request: building it blocks this process for seconds under load, longer
 * than the service's keep-alive, and a pooled connection the service closed meanwhile would be
 * reused for the next request ("fetch failed").
 */
let photo: Uint8Array;

/** What a caller does with get-signed-upload-url: PUT the file, then use the GET link. */
async function upload(name: string, bytes: Uint8Array): Promise<string> {
  const { data, error } = await sdk.tools.getSignedUploadUrl(name);
  expect(error).toBeNull();
  const put = await fetch(data!.presignedUploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'application/pdf' },
    body: Buffer.from(bytes),
  });
  expect(put.status).toBe(200);
  return data!.presignedGetUrl;
}

async function fetchPdf(url: string): Promise<Uint8Array> {
  const file = await download(url);
  expect(file.status).toBe(200);
  expect(isPdf(file.bytes)).toBe(true);
  return file.bytes;
}

beforeAll(async () => {
  photo = await imagePdf();
  svc = await startEmbedded({ PRESSROOM_TOOL_MAX_INPUT_BYTES: String(MAX_UPLOAD) });
  process.env.PDFNOODLE_BASE_URL = svc.baseUrl;
  sdk = new PdfNoodle(svc.apiKey);
  await hook.start();
});
afterAll(async () => {
  await hook.stop();
  await svc?.app.stop();
});

describe('PDF tools through the official SDK (embedded profile)', () => {
  let a: string;
  let b: string;
  let merged: string;

  it('getSignedUploadUrl: a PUT link and a GET link to the same file, names sanitised', async () => {
    const { data } = await sdk.tools.getSignedUploadUrl('my report (1).pdf');
    expect(data).toMatchObject({ status: 'SUCCESS', fileName: 'my_report__1_.pdf' });
    expect(Date.parse(data!.uploadUrlValidUntil)).toBeLessThan(Date.parse(data!.getUrlValidUntil));
    a = await upload('a.pdf', await textPdf('A', 2));
    b = await upload('b.pdf', await textPdf('B', 1));
    expect(await pdfPageText(await fetchPdf(a), 2)).toContain('Page 2 of A');
  });

  it('an upload over the size limit is refused with 413 and stores nothing', async () => {
    const { data } = await sdk.tools.getSignedUploadUrl('big.pdf');
    const put = await fetch(data!.presignedUploadUrl, { method: 'PUT', body: new Uint8Array(MAX_UPLOAD + 1) });
    expect(put.status).toBe(413);
    expect((await download(data!.presignedGetUrl)).status).toBe(403);
    // A tampered upload link stores nothing either.
    const tampered = data!.presignedUploadUrl.replace(/signature=[0-9a-f]/, (m) => m.slice(0, -1) + (m.endsWith('0') ? '1' : '0'));
    expect((await fetch(tampered, { method: 'PUT', body: new Uint8Array(10) })).status).toBe(403);
  });

  it('mergePdfs: the pages of every input, in order, under the requested name', async () => {
    const { data, error } = await sdk.tools.mergePdfs({ urls: [a, b], finalFilename: 'merged report.pdf', expiration: 600 });
    expect(error).toBeNull();
    expect(data).toMatchObject({ status: 'SUCCESS', fileName: 'merged_report.pdf' });
    const validFor = Date.parse(data!.urlValidUntil) - Date.now();
    expect(validFor).toBeGreaterThan(500_000);
    expect(validFor).toBeLessThanOrEqual(600_000);
    const bytes = await fetchPdf(data!.url);
    expect((await pdfInfo(bytes)).Pages).toBe('3');
    expect(await pdfPageText(bytes, 1)).toContain('Page 1 of A');
    expect(await pdfPageText(bytes, 3)).toContain('Page 1 of B');
    merged = data!.url;
  });

  it('splitPdf by ranges and by intervals: one file per part, named {name}_{n}.pdf', async () => {
    const ranges = await sdk.tools.splitPdf({ url: merged, splitMode: 'ranges', ranges: '3,1-2', finalFilename: 'chapter.pdf' });
    expect(ranges.data).toMatchObject({ status: 'SUCCESS', totalParts: 2, fileName: 'chapter.pdf' });
    const [first, second] = await Promise.all(ranges.data!.urls.map(fetchPdf));
    expect((await pdfInfo(first!)).Pages).toBe('1');
    expect(await pdfText(first!)).toContain('Page 1 of B');
    expect((await pdfInfo(second!)).Pages).toBe('2');
    expect(ranges.data!.urls[0]).toContain('chapter_1.pdf');

    const intervals = await sdk.tools.splitPdf({ url: merged, splitMode: 'intervals', interval: 2 });
    expect(intervals.data?.totalParts).toBe(2);
    expect((await pdfInfo(await fetchPdf(intervals.data!.urls[1]!))).Pages).toBe('1');

    const beyond = await svc.api.post('/v1/tools/split-pdf', { url: merged, splitMode: 'ranges', ranges: '2-9' });
    expect(beyond.status).toBe(422);
    expect(beyond.json.error).toMatchObject({ code: 'INPUT_INVALID' });
  });

  it('compressPdf: a document with a large image really shrinks, its text stays', async () => {
    const original = photo;
    const url = await upload('photo.pdf', original);
    const { data, error } = await sdk.tools.compressPdf({ url, compressLevel: 'high' });
    expect(error).toBeNull();
    const bytes = await fetchPdf(data!.url);
    expect(bytes.byteLength).toBeLessThan(original.byteLength / 2);
    expect(await pdfText(bytes)).toContain('Photo report');
    expect(data!.metadata.reduction).toMatch(/^\d+\.\d%$/);
    expect(parseFloat(data!.metadata.reduction)).toBeGreaterThan(50);
  });

  it('reads tool bodies as integration platforms send them: placeholders, JSON strings, unknown fields reported (strict: 400)', async () => {
    const url = await upload('form.pdf', photo);
    // An empty form field is absent (default level), a JSON-typed field may come as text, a typo is reported
    const res = await svc.api.post('/v1/tools/compress-pdf', {
      url,
      compressLevel: '',
      finalFilename: null,
      webhook: '',
      compresLevel: 'high',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('pressroom-ignored-fields')).toBe('compresLevel');
    const meta = await svc.api.post('/v1/tools/update-pdf-metadata', { url, metadata: '{"title":"From a form"}', async: 'false' });
    expect(meta.status).toBe(200);
    expect((await pdfInfo(await fetchPdf(meta.json.url))).Title).toBe('From a form');
    // A caller asking for strictness gets the typo refused, naming it
    const strict = await svc.api.call(
      'POST',
      '/v1/tools/compress-pdf',
      { url, compresLevel: 'high' },
      { 'pressroom-strict-fields': 'true' },
    );
    expect(strict.status).toBe(400);
    expect(strict.json.error.details).toEqual([{ field: 'compresLevel', message: 'is not a known field' }]);
  });

  it('every tool reads a no-code form as meant: every field sent, empty ones as false/null/"", JSON-typed ones as JSON text', async () => {
    const empty = { finalFilename: '', expiration: '', async: false, webhook: '' };
    const merged = await svc.api.post('/v1/tools/merge-pdfs', { urls: JSON.stringify([a, b]), ...empty });
    expect(merged.status, merged.text).toBe(200);
    expect((await pdfInfo(await fetchPdf(merged.json.url))).Pages).toBe('3');

    const split = await svc.api.post('/v1/tools/split-pdf', {
      url: a,
      splitMode: 'ranges',
      ranges: '2',
      interval: '',
      ...empty,
      finalFilename: null,
      async: '',
    });
    expect(split.status, split.text).toBe(200);
    expect(split.json.totalParts).toBe(1);
    expect(await pdfText(await fetchPdf(split.json.urls[0]))).toContain('Page 2 of A');

    const compressed = await svc.api.post('/v1/tools/compress-pdf', { url: b, compressLevel: null, ...empty });
    expect(compressed.status, compressed.text).toBe(200);

    const meta = await svc.api.post('/v1/tools/update-pdf-metadata', {
      url: a,
      metadata: JSON.stringify({
        title: 'Form title',
        author: '',
        subject: null,
        keywords: 'x, y',
        creator: '',
        producer: '',
        copyright: '',
        createDate: '',
        modDate: '',
        pdfVersion: '',
        marked: false,
        trapped: '',
      }),
      ...empty,
      async: 'false',
    });
    expect(meta.status, meta.text).toBe(200);
    expect(meta.headers.get('pressroom-ignored-fields')).toBeNull();
    const info = await pdfInfo(await fetchPdf(meta.json.url));
    expect(info).toMatchObject({ Title: 'Form title', Keywords: 'x, y' });
    expect(info.Author).toBeUndefined();

    const md = await svc.api.post('/v1/tools/convert-markdown-to-pdf', {
      markdown: '# Form notes',
      customCss: '',
      pdfOptions: JSON.stringify({
        format: 'a5',
        landscape: false,
        scale: '',
        printBackground: false,
        pageRanges: '',
        margin: { top: '', right: null, bottom: '1cm', left: '' },
      }),
      ...empty,
    });
    expect(md.status, md.text).toBe(200);
    const notes = await fetchPdf(md.json.url);
    expect(await pdfText(notes)).toContain('Form notes');
    expect((await pdfInfo(notes))['Page size']).toContain('(A5)');

    const upload = await svc.api.get('/v1/tools/get-signed-upload-url?fileName=');
    expect(upload.status, upload.text).toBe(200);
    expect(upload.json.fileName).toMatch(/^upload-[0-9a-f]{8}\.pdf$/);
  });

  it('updatePdfMetadata: every field the SDK names is written', async () => {
    const { data, error } = await sdk.tools.updatePdfMetadata({ url: a, metadata: everyToolMetadataField });
    expect(error).toBeNull();
    const bytes = await fetchPdf(data!.url);
    const info = await pdfInfo(bytes);
    expect(info).toMatchObject({ ...everyToolMetadataFieldInfo, Pages: '2' });
    expect(info.Keywords).toContain('finance');
    expect(info.CreationDate).toContain('2024');
  });

  it('markdownToPdf: Markdown printed by Chromium, raw HTML shown as text, customCss applied safely', async () => {
    const { data, error } = await sdk.tools.markdownToPdf({
      markdown: '# Release notes\n\n- **fast** merge\n- <script>document.write("INJECTED")</script>\n',
      customCss: 'h1 { color: #c00 } </style><script>document.write("CSS-INJECTED")</script>',
      pdfOptions: { format: 'letter', margin: { top: 40, bottom: '1cm' } },
    });
    expect(error).toBeNull();
    const bytes = await fetchPdf(data!.url);
    const text = await pdfText(bytes);
    expect(text).toContain('Release notes');
    expect(text).toContain('<script>');
    expect(text).not.toContain('CSS-INJECTED');
    expect((await pdfInfo(bytes))['Page size']).toContain('612 x 792');
  });

  it('refuses file:, loopback, private and metadata addresses with 400 in the one error shape', async () => {
    const res = await svc.api.post('/v1/tools/merge-pdfs', {
      urls: [
        'file:///etc/passwd',
        'https://127.0.0.1/a.pdf',
        'https://169.254.169.254/latest/meta-data',
        'https://10.1.2.3/x.pdf',
        'http://example.com/x.pdf',
      ],
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_FAILED');
    expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual(['urls.0', 'urls.1', 'urls.2', 'urls.3', 'urls.4']);
    // The SDK sees a validation error.
    const viaSdk = await sdk.tools.compressPdf({ url: 'https://localhost/x.pdf' });
    expect(viaSdk.error).toMatchObject({ name: 'validation_error', statusCode: 400 });
  });

  it('a garbage "PDF" fails cleanly: 422 INPUT_INVALID in sync, FAILED on status in async, and the service goes on', async () => {
    const garbage = await upload(
      'garbage.pdf',
      Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n%%EOF\n' + 'x'.repeat(5000)),
    );
    const sync = await svc.api.post('/v1/tools/compress-pdf', { url: garbage });
    expect(sync.status).toBe(422);
    expect(sync.json.error.code).toBe('INPUT_INVALID');

    const queued = await svc.api.post('/v1/tools/update-pdf-metadata', { url: garbage, metadata: { title: 'x' }, async: true });
    expect(queued.status).toBe(200);
    expect(queued.json.statusUrl).toBe(`${svc.baseUrl}/v1/tools/status/${queued.json.requestId}`);
    const failed = await waitFor(
      async () => {
        const s = await svc.api.get(`/v1/tools/status/${queued.json.requestId}`);
        return s.json.status === 'FAILED' ? s.json : undefined;
      },
      { timeoutMs: 30_000, description: 'the tool request FAILED' },
    );
    expect(failed).toMatchObject({ result: null, metadata: { errorCode: 'INPUT_INVALID' } });
    expect(failed.metadata.errorMessage).toMatch(/not a PDF|no pages/);
    // A render status id is not a tool id, and the other way round.
    expect((await svc.api.get(`/v1/pdf/status/not-a-request`)).status).toBe(404);
    expect((await svc.api.get('/v1/tools/status/not-a-request')).status).toBe(404);
  });

  it('async with a webhook: {requestId, statusUrl} at once, then the tool status POSTed and shown on status', async () => {
    const res = await svc.api.post('/v1/tools/merge-pdfs', { urls: [b, b], async: true, webhook: hook.url('/tools') });
    expect(res.status).toBe(200);
    const call = await hook.waitForCall('/tools');
    expect(call.headers['webhook-signature']).toBeDefined();
    expect(call.body).toMatchObject({ requestId: res.json.requestId, status: 'SUCCESS', metadata: {} });
    const result = (call.body as { result: { url: string } }).result;
    expect((await pdfInfo(await fetchPdf(result.url))).Pages).toBe('2');
    const status = await svc.api.get(`/v1/tools/status/${res.json.requestId}`);
    expect(status.json).toMatchObject({ status: 'SUCCESS', result: { status: 'SUCCESS', fileName: expect.stringMatching(/\.pdf$/) } });
    // Both links handed out, in the webhook body and on status, are on the render's history (recorded off the request path).
    const links = await waitFor(
      async () => {
        const h = await svc.api.get(`/v1/pdf/${res.json.requestId}/events`);
        const issued = (h.json.events as { type: string; data: { where: string } }[]).filter((e) => e.type === 'LinkIssued');
        return issued.length >= 2 ? issued.map((e) => e.data.where) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the links on the history' },
    );
    expect(links).toEqual(['webhook', 'status']);
  });
});
