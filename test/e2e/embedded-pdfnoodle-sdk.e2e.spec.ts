import { PdfNoodle, type PdfParams } from 'pdfnoodle';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createServer as createPdfNoodleMcpServer } from 'mcp-server-pdfnoodle/dist/server.js';
import { client as pdfNoodleMcpHttp } from 'mcp-server-pdfnoodle/dist/client.js';
import { PDFDocument, PDFName } from 'pdf-lib';
import { waitFor } from '@pressroom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download } from '../support/api-client.ts';
import { startEmbedded } from '../support/embedded-service.ts';
import { textPdf } from '../support/pdf-fixtures.ts';
import { isPdf, isPng, pdfInfo, pdfPageText, pdfText } from '../support/pdf-tools.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

// Issue 10: the official SDK of the real API (`pdfnoodle` from npm, unmodified) pointed at
// Pressroom with PDFNOODLE_BASE_URL, for every render and template method it has and every option
// its types name; then the request shapes integration platforms send (placeholders, JSON strings).
// The SDK's `tools.*` methods are run in embedded-pdf-tools.e2e.spec.ts and its batch calls in
// embedded-batch.e2e.spec.ts; here also the batch's 202 (slower than the sync wait) and the real
// API's MCP server (`mcp-server-pdfnoodle` from npm), every one of its tools.

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

/** The SDK polls the status endpoint after a 202; quicker than its 2 s default, same path. */
const POLL = { pollInterval: 300, maxAttempts: 200, backoffMultiplier: 1 };
const TEMPLATE = {
  name: 'Invoice',
  content: '<title>Invoice</title><h1>INVOICE <%= it.number %></h1><p>for <%= it.customer.name %></p>',
  header: '<div>HEADER <%= it.number %> p<%= it.$page %></div>',
};

function pageSize(info: Record<string, string>): { width: number; height: number } {
  const m = /([\d.]+) x ([\d.]+) pts/.exec(info['Page size'] ?? '');
  return { width: Number(m?.[1]), height: Number(m?.[2]) };
}

/** Seconds a signed link still lives, read from its `expires` (local links) parameter. */
function linkLifetime(url: string): number {
  const expires = Number(new URL(url).searchParams.get('expires'));
  return expires - Math.floor(Date.now() / 1000);
}

async function fetchFile(url: string): Promise<Uint8Array> {
  const file = await download(url);
  expect(file.status).toBe(200);
  return file.bytes;
}

describe('the official pdfnoodle SDK against Pressroom (embedded profile)', () => {
  let svc: Svc;
  let sdk: PdfNoodle;
  let templateId: string;
  const hooks = new WebhookReceiver();

  beforeAll(async () => {
    await hooks.start();
    // A sync render waits 8 s before it answers 202: the slow renders below (9.5 s) take the SDK's
    // polling path, and everything else answers in time even on a busy CI machine (with 3 s, the
    // MCP server's compress_pdf once got a 202 there and said "queued").
    svc = await startEmbedded({ PRESSROOM_SYNC_TIMEOUT_MS: '8000' });
    process.env['PDFNOODLE_BASE_URL'] = svc.baseUrl;
    sdk = new PdfNoodle(svc.apiKey);
    const t = await svc.api.post('/v1/templates', TEMPLATE);
    expect(t.status, t.text).toBe(201);
    templateId = t.json.templateId as string;
  });

  afterAll(async () => {
    await svc?.app.stop();
    await hooks.stop();
  });

  it('is pointed at Pressroom', () => {
    expect(sdk.baseUrl).toBe(svc.baseUrl);
  });

  describe('templates', () => {
    it('list: {templates: [{id, displayName}]}', async () => {
      const { data, error } = await sdk.templates.list();
      expect(error).toBeNull();
      expect(data?.templates).toContainEqual(expect.objectContaining({ id: templateId, displayName: 'Invoice' }));
    });

    it('get: the template in the real API shape', async () => {
      const { data, error } = await sdk.templates.get(templateId);
      expect(error).toBeNull();
      expect(data?.template).toEqual({
        id: templateId,
        displayName: 'Invoice',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        style: { headerTemplate: TEMPLATE.header, displayHeaderFooter: true },
        type: 'HTML',
        htmlTemplate: TEMPLATE.content,
        version: 1,
      });
    });

    it('getVariables: the variables the template uses', async () => {
      const { data, error } = await sdk.templates.getVariables(templateId);
      expect(error).toBeNull();
      expect(data?.['variables']).toEqual(
        expect.arrayContaining([
          { name: 'number', type: 'any', required: true },
          { name: 'customer.name', type: 'any', required: true },
        ]),
      );
    });

    it('create (AI generation): a clear 501 whose message the SDK shows', async () => {
      const { data, error } = await sdk.templates.create({ displayName: 'x', prompt: 'an invoice' });
      expect(data).toBeNull();
      expect(error).toMatchObject({ statusCode: 501, name: 'internal_server_error' });
      expect(error?.message).toMatch(/not offered by Pressroom/);
    });

    it('get of an unknown id: not_found with our message', async () => {
      const { error } = await sdk.templates.get('tpl_nope');
      expect(error).toMatchObject({ statusCode: 404, name: 'not_found', message: expect.stringContaining('tpl_nope') });
    });
  });

  describe('errors reach the SDK user', () => {
    it('a wrong key: invalid_api_key', async () => {
      const { error } = await new PdfNoodle('prk_wrong').pdf.fromHTML({ html: '<p>x</p>' });
      expect(error).toMatchObject({ statusCode: 401, name: 'invalid_api_key' });
      expect(error?.message).not.toBe('Unauthorized');
    });

    it('a bad value: validation_error naming the field', async () => {
      const { error } = await sdk.pdf.fromHTML({ html: '<p>x</p>', signedUrlExpiresIn: 5 });
      expect(error).toMatchObject({ statusCode: 400, name: 'validation_error' });
      expect(error?.message).toContain('signedUrlExpiresIn');
    });

    it('a variable missing from data: validation_error naming it', async () => {
      const { error } = await sdk.pdf.fromTemplate({ templateId, data: { number: 1 } }, POLL);
      expect(error).toMatchObject({ statusCode: 400, name: 'validation_error', message: expect.stringContaining('data.customer') });
    });
  });

  describe('pdf', () => {
    it('fromTemplate with metadata, signedUrlExpiresIn, externalId, hasCover and debug', async () => {
      const { data, error } = await sdk.pdf.fromTemplate(
        {
          templateId,
          data: { number: 'F-17', customer: { name: 'Ada' } },
          metadata: { title: 'Invoice F-17', author: 'Acme', subject: 'Billing', keywords: ['invoice', 'f17'], creator: 'SDK test' },
          signedUrlExpiresIn: 120,
          externalId: 'order-17',
          hasCover: true,
          debug: true,
        },
        POLL,
      );
      expect(error).toBeNull();
      expect(data?.metadata.fileSize).toMatch(/ kB$/);
      // The link lives as long as asked, not the default hour.
      expect(linkLifetime(data!.signedUrl)).toBeGreaterThan(100);
      expect(linkLifetime(data!.signedUrl)).toBeLessThanOrEqual(120);
      const pdf = await fetchFile(data!.signedUrl);
      expect(isPdf(pdf)).toBe(true);
      const info = await pdfInfo(pdf);
      expect(info).toMatchObject({
        Title: 'Invoice F-17',
        Author: 'Acme',
        Subject: 'Billing',
        Keywords: 'invoice, f17',
        Creator: 'SDK test',
      });
      const text = await pdfText(pdf);
      expect(text).toContain('INVOICE F-17');
      expect(text).toContain('for Ada');
      // hasCover: the only page is the cover, so the template's header is not printed on it.
      expect(text).not.toContain('HEADER');
    });

    it('fromHTML with Puppeteer pdfParams: Ledger in any case, px numbers, Chromium header template, outline, tagged, hasCover', async () => {
      const pdfParams = {
        format: 'ledger',
        margin: { top: 60, right: 30, bottom: '0.5IN', left: 30 },
        displayHeaderFooter: true,
        headerTemplate:
          '<div style="font-size:12px">P<span class="pageNumber"></span>/<span class="totalPages"></span> <span class="title"></span></div>',
        footerTemplate: '',
        outline: true,
        tagged: true,
        printBackground: true,
        preferCSSPageSize: false,
      } as unknown as PdfParams;
      const { data, error } = await sdk.pdf.fromHTML(
        {
          html: '<title>Quarterly</title><style>@page { size: A6 }</style><h1>First</h1><h2 style="break-before: page">Second</h2>',
          pdfParams,
          hasCover: true,
        },
        POLL,
      );
      expect(error).toBeNull();
      const pdf = await fetchFile(data!.signedUrl);
      const info = await pdfInfo(pdf);
      // Ledger is 17 x 11 in, and the format beats the page's own CSS @page size.
      expect(info['Pages']).toBe('2');
      expect(pageSize(info)).toEqual({ width: 1224, height: 792 });
      expect(info['Tagged']).toBe('yes');
      const [first, second] = [await pdfPageText(pdf, 1), await pdfPageText(pdf, 2)];
      expect(first).toContain('First');
      expect(first).not.toMatch(/P1\/2/);
      expect(second).toMatch(/P2\/2\s+Quarterly/);
      const doc = await PDFDocument.load(pdf);
      expect(doc.catalog.get(PDFName.of('Outlines'))).toBeDefined();
    });

    it('fromHTML with convertToImage: a PNG', async () => {
      const { data, error } = await sdk.pdf.fromHTML({ html: '<h1 style="margin:0">PNG</h1>', convertToImage: true }, POLL);
      expect(error).toBeNull();
      expect(new URL(data!.signedUrl).pathname).toMatch(/\.PNG$/);
      expect(isPng(await fetchFile(data!.signedUrl))).toBe(true);
      expect(linkLifetime(data!.signedUrl)).toBeGreaterThan(3500);
    });

    it('fromHTML slower than the sync wait: the SDK follows the 202 and polls getStatus to the file', async () => {
      const slow = '<script>const end = Date.now() + 9500; while (Date.now() < end) {}</script><p>SLOW DONE</p>';
      const { data, error } = await sdk.pdf.fromHTML({ html: slow, signedUrlExpiresIn: 600 }, POLL);
      expect(error).toBeNull();
      expect(linkLifetime(data!.signedUrl)).toBeGreaterThan(500);
      expect(await pdfText(await fetchFile(data!.signedUrl))).toContain('SLOW DONE');
    });

    it('fromHTMLAsync with metadata, then the webhook and getStatus', async () => {
      const { data, error } = await sdk.pdf.fromHTMLAsync({
        html: '<p>ASYNC HTML</p>',
        webhook: hooks.url('/html'),
        metadata: { title: 'Async title' },
        signedUrlExpiresIn: 300,
      });
      expect(error).toBeNull();
      const requestId = data!.requestId;
      const call = await waitFor(() => hooks.calls.find((c) => (c.body as { requestId?: string }).requestId === requestId), {
        timeoutMs: 30_000,
        description: 'the webhook of the async HTML render',
      });
      const hook = call.body as { renderStatus: string; signedUrl: string };
      expect(hook.renderStatus).toBe('SUCCESS');
      expect(linkLifetime(hook.signedUrl)).toBeLessThanOrEqual(300);
      const status = await sdk.pdf.getStatus(requestId);
      expect(status.data).toMatchObject({ requestId, renderStatus: 'SUCCESS', metadata: { fileSize: expect.stringMatching(/ kB$/) } });
      const pdf = await fetchFile(status.data!.signedUrl);
      expect((await pdfInfo(pdf))['Title']).toBe('Async title');
    });

    it('fromTemplateAsync with externalId: echoed on the status and in the webhook', async () => {
      const { data, error } = await sdk.pdf.fromTemplateAsync({
        templateId,
        data: { number: 'A-1', customer: { name: 'Bo' } },
        webhook: hooks.url('/template'),
        externalId: 'crm-42',
      });
      expect(error).toBeNull();
      const requestId = data!.requestId;
      const call = await waitFor(() => hooks.calls.find((c) => (c.body as { requestId?: string }).requestId === requestId), {
        timeoutMs: 30_000,
        description: 'the webhook of the async template render',
      });
      expect(call.body).toMatchObject({ requestId, renderStatus: 'SUCCESS', externalId: 'crm-42' });
      const status = await sdk.pdf.getStatus(requestId);
      expect(status.data).toMatchObject({ requestId, renderStatus: 'SUCCESS', externalId: 'crm-42' });
      expect(await pdfText(await fetchFile(status.data!.signedUrl))).toContain('INVOICE A-1');
    });

    it('getStatus of an unknown id: not_found', async () => {
      const { error } = await sdk.pdf.getStatus('01940000-0000-7000-8000-000000000000');
      expect(error).toMatchObject({ statusCode: 404, name: 'not_found' });
    });
  });

  describe('request shapes of integration platforms', () => {
    it('reads placeholders and JSON strings as meant, ignores and names unknown fields, and keeps a debug report', async () => {
      const res = await svc.api.post('/v1/pdf/sync', {
        templateId,
        data: JSON.stringify({ number: 'S-9', customer: { name: 'Cy' }, costumer: 'typo' }),
        pdfParams: JSON.stringify({ format: 'a5', margin: { top: '', left: 20 }, scale: null }),
        metadata: '{"title":"From a form","keywords":"one, two"}',
        convertToImage: false,
        hasCover: '',
        s3_bucket: '',
        s3_key: null,
        externalId: false,
        signedUrlExpiresIn: '900',
        debug: 'true',
        templateVersion: '',
        zapierMeta: { step: 3 },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('pressroom-ignored-fields')).toBe('zapierMeta');
      expect(linkLifetime(res.json.signedUrl as string)).toBeGreaterThan(800);
      const pdf = await fetchFile(res.json.signedUrl as string);
      const info = await pdfInfo(pdf);
      expect(info).toMatchObject({ Title: 'From a form', Keywords: 'one, two' });
      expect(Math.abs(pageSize(info).width - 419.5)).toBeLessThan(1.5); // A5
      expect(await pdfText(pdf)).toContain('INVOICE S-9');

      // debug: the rendered HTML and the variable checks, behind a signed link in a header.
      const debugUrl = res.headers.get('pressroom-debug-url');
      expect(debugUrl).toBeTruthy();
      const report = JSON.parse(Buffer.from(await fetchFile(debugUrl!)).toString('utf8')) as Record<string, unknown>;
      expect(report['renderedHtml']).toContain('INVOICE S-9');
      expect(report['variables']).toEqual(expect.arrayContaining([{ name: 'customer.name', type: 'any', required: true, provided: true }]));
      expect(report['unusedData']).toEqual(['costumer']);
    });

    it('refuses unknown fields when the caller asks for strictness, and a link lifetime out of range', async () => {
      const strict = await svc.api.call(
        'POST',
        '/v1/html-to-pdf/sync',
        { html: '<p>x</p>', convertToImg: true, pdfParams: { path: '/tmp/x.pdf' } },
        { 'Pressroom-Strict-Fields': 'true' },
      );
      expect(strict.status).toBe(400);
      expect(strict.json.error.details).toEqual([
        { field: 'convertToImg', message: 'is not a known field' },
        { field: 'pdfParams.path', message: 'is not a known field' },
      ]);
      expect(strict.json.message).toContain('convertToImg');
      const long = await svc.api.post('/v1/html-to-pdf/async', { html: '<p>x</p>', webhook: hooks.url('/x'), signedUrlExpiresIn: 604_801 });
      expect(long.status).toBe(400);
      expect(long.json.error.details).toEqual([expect.objectContaining({ field: 'signedUrlExpiresIn' })]);
    });
  });

  describe('batch slower than the sync wait', () => {
    it('answers 202 with the batch status URL, and that URL reaches the finished batch', async () => {
      const slow = '<script>const end = Date.now() + 9500; while (Date.now() < end) {}</script><p>SLOW ITEM</p>';
      const res = await sdk.post<{ statusCode: number; batchRequestId: string; statusUrl: string; message: string }>({
        path: '/v1/html-to-pdf/batch',
        body: { items: [{ html: slow }, { html: '<p>QUICK ITEM</p>' }], merge: true },
      });
      expect(res.error).toBeNull();
      expect(res.data).toMatchObject({ statusCode: 202, message: expect.stringContaining('statusUrl') });
      const { batchRequestId, statusUrl } = res.data!;
      expect(statusUrl).toBe(`${svc.baseUrl}/v1/pdf/batch/status/${batchRequestId}`);
      const done = await waitFor(
        async () => {
          const s = await sdk.get<{ status: string; mergedUrl?: string; results: Array<{ status: string }> }>({
            path: new URL(statusUrl).pathname,
          });
          return s.data?.status === 'SUCCESS' ? s.data : undefined;
        },
        { timeoutMs: 60_000, description: 'the slow batch finished' },
      );
      expect(done.results).toHaveLength(2);
      const merged = await fetchFile(done.mergedUrl!);
      expect(await pdfPageText(merged, 1)).toContain('SLOW ITEM');
      expect(await pdfPageText(merged, 2)).toContain('QUICK ITEM');
    });
  });

  // The real API's own MCP server, unmodified, run in this process over an in-memory MCP transport.
  // It has no setting for its base URL (api.pdfnoodle.com is built in), so its one HTTP client is
  // pointed at Pressroom as a hosts entry or proxy would do; every request is its own.
  describe('the pdf noodle MCP server (mcp-server-pdfnoodle) against Pressroom', () => {
    let mcp: McpClient;

    type ToolResult = { text: string; isError: boolean };
    async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
      const res = (await mcp.callTool({ name, arguments: args })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
      return { text: res.content.map((c) => c.text).join('\n'), isError: res.isError === true };
    }
    const line = (text: string, label: string) => new RegExp(`${label}: (\\S+)`).exec(text)?.[1] ?? '';
    const requestIdOf = (text: string) => line(text, 'Request ID');

    beforeAll(async () => {
      (pdfNoodleMcpHttp as unknown as { baseUrl: string }).baseUrl = `${svc.baseUrl}/v1/`;
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createPdfNoodleMcpServer(svc.apiKey).connect(serverSide);
      mcp = new McpClient({ name: 'pressroom-e2e', version: '1.0.0' });
      await mcp.connect(clientSide);
    });
    afterAll(async () => {
      await mcp?.close();
    });

    it('offers the tools the tests below call', async () => {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        [
          'check_pdf_status',
          'check_tool_status',
          'compress_pdf',
          'convert_markdown_to_pdf',
          'create_template_with_ai',
          'generate_pdf',
          'get_template',
          'get_template_schema',
          'get_upload_url',
          'html_to_pdf',
          'list_templates',
          'merge_pdfs',
          'split_pdf',
          'update_pdf_metadata',
        ].sort(),
      );
    });

    it('templates: list_templates, get_template, get_template_schema; create_template_with_ai shows our 501', async () => {
      expect((await call('list_templates')).text).toContain(`Invoice (ID: ${templateId})`);
      const one = await call('get_template', { templateId });
      expect(one.isError).toBe(false);
      expect(one.text).toContain(`ID: ${templateId}`);
      expect(one.text).toContain('Display Name: Invoice');
      expect((await call('get_template_schema', { templateId })).text).toContain('customer.name');
      const ai = await call('create_template_with_ai', { displayName: 'x', prompt: 'an invoice' });
      expect(ai.isError).toBe(true);
      expect(ai.text).toContain('API Error (501)');
      expect(ai.text).toContain('not offered by Pressroom');
    });

    it('generate_pdf and html_to_pdf (JSON-string data, metadata and pdfParams), a queued render and check_pdf_status; async without a webhook is a 400', async () => {
      const fromTemplate = await call('generate_pdf', {
        templateId,
        data: JSON.stringify({ number: 'M-1', customer: { name: 'Mo' } }),
        metadata: JSON.stringify({ title: 'From the MCP server' }),
        signedUrlExpiresIn: 600,
        hasCover: true,
        debug: true,
      });
      expect(fromTemplate.isError, fromTemplate.text).toBe(false);
      const pdf = await fetchFile(line(fromTemplate.text, 'Download URL'));
      expect(await pdfText(pdf)).toContain('INVOICE M-1');
      expect((await pdfInfo(pdf))['Title']).toBe('From the MCP server');

      const fromHtml = await call('html_to_pdf', { html: '<p>MCP HTML</p>', pdfParams: JSON.stringify({ format: 'A5' }) });
      expect(fromHtml.isError, fromHtml.text).toBe(false);
      const a5 = await pdfInfo(await fetchFile(line(fromHtml.text, 'Download URL')));
      expect(Math.abs(pageSize(a5).width - 419.5)).toBeLessThan(1.5);

      // Slower than the sync wait: the MCP server hands the 202's requestId to check_pdf_status.
      const slow = '<script>const end = Date.now() + 9500; while (Date.now() < end) {}</script><p>MCP SLOW</p>';
      const queued = await call('html_to_pdf', { html: slow });
      expect(queued.text).toContain('queued');
      const ready = await waitFor(
        async () => {
          const s = await call('check_pdf_status', { requestId: requestIdOf(queued.text) });
          return s.text.startsWith('PDF is ready') ? s : undefined;
        },
        { timeoutMs: 30_000, description: 'the queued MCP render is ready' },
      );
      expect(await pdfText(await fetchFile(line(ready.text, 'Download URL')))).toContain('MCP SLOW');

      // Its `async: true` sends no webhook, which the contract requires on the async endpoints:
      // the MCP user reads a 400 naming the field (README: what differs).
      const noHook = await call('generate_pdf', { templateId, data: JSON.stringify({ number: 1, customer: { name: 'x' } }), async: true });
      expect(noHook.isError).toBe(true);
      expect(noHook.text).toContain('API Error (400)');
      expect(noHook.text).toContain('webhook is required');
    });

    it('PDF tools: get_upload_url, merge, split, compress, update metadata, Markdown, and check_tool_status', async () => {
      const upload = await call('get_upload_url', { fileName: 'mcp.pdf' });
      const put = await fetch(line(upload.text, 'Upload URL \\(PUT\\)'), { method: 'PUT', body: Buffer.from(await textPdf('MCP', 2)) });
      expect(put.status).toBe(200);
      const input = line(upload.text, 'Download URL \\(GET\\)');

      const merged = await call('merge_pdfs', { urls: [input, input], finalFilename: 'both.pdf' });
      expect(merged.isError, merged.text).toBe(false);
      expect((await pdfInfo(await fetchFile(line(merged.text, 'Download URL'))))['Pages']).toBe('4');

      const split = await call('split_pdf', { url: input, splitMode: 'intervals', interval: 1 });
      expect(split.isError, split.text).toBe(false);
      expect(split.text).toContain('"totalParts": 2');

      const compressed = await call('compress_pdf', { url: input, compressLevel: 'low' });
      expect(compressed.isError, compressed.text).toBe(false);
      expect(compressed.text).toMatch(/Reduction: -?\d/);

      const meta = await call('update_pdf_metadata', {
        url: input,
        metadata: JSON.stringify({ title: 'MCP title', keywords: ['a', 'b'] }),
      });
      expect(meta.isError, meta.text).toBe(false);
      expect((await pdfInfo(await fetchFile(line(meta.text, 'Download URL'))))['Title']).toBe('MCP title');

      const md = await call('convert_markdown_to_pdf', { markdown: '# MCP notes', pdfOptions: JSON.stringify({ format: 'Letter' }) });
      expect(md.isError, md.text).toBe(false);
      const notes = await fetchFile(line(md.text, 'Download URL'));
      expect(await pdfText(notes)).toContain('MCP notes');
      expect((await pdfInfo(notes))['Page size']).toContain('612 x 792');

      // A tool run in the background; the MCP server asks /v1/pdf/status for it.
      const queued = await call('merge_pdfs', { urls: [input, input], async: true });
      expect(queued.isError, queued.text).toBe(false);
      const ready = await waitFor(
        async () => {
          const s = await call('check_tool_status', { requestId: requestIdOf(queued.text) });
          return s.text.startsWith('Tool operation completed') ? s : undefined;
        },
        { timeoutMs: 30_000, description: 'the async MCP tool is done' },
      );
      expect((await pdfInfo(await fetchFile(line(ready.text, 'Download URL'))))['Pages']).toBe('4');
    });
  });
});
