import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, download, type ApiClient } from '../support/api-client.ts';
import { isPdf, pdfFonts, pdfImages, pdfInfo, pdfPageText, pdfText } from '../support/pdf-tools.ts';
import { solidPng } from '../support/fixtures.ts';

// Issue 3, points 4, 5, 6 and 9, over HTTP against the embedded profile: what a tenant uploads and
// stores is what shows up in the PDF, and template code stays harmless.

type Svc = Awaited<ReturnType<typeof startEmbedded>>;
type Res = Awaited<ReturnType<ApiClient['post']>>;

/** Fonts no page falls back to by itself (Chromium's default serif here is Liberation Serif). */
const HEADER_FONT = { file: '/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Regular.ttf', pdfName: 'LiberationSansNarrow' };
const BODY_FONT = { file: '/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed.ttf', pdfName: 'DejaVuSerifCondensed' };
const ASSET = 'https://assets.pressroom.invalid';
/** An environment variable of the service that no output may ever show. */
const ENV_SECRET = 'E2E-ENV-SECRET-7f3a9c';

async function pdfOf(res: Res): Promise<Uint8Array> {
  expect(res.status, res.text).toBe(200);
  const file = await download(res.json.signedUrl as string);
  expect(file.status).toBe(200);
  expect(isPdf(file.bytes)).toBe(true);
  return file.bytes;
}

async function upload(api: ApiClient, name: string, contentType: string, bytes: Uint8Array): Promise<void> {
  const res = await api.post('/v1/assets', { name, contentType, dataBase64: Buffer.from(bytes).toString('base64') });
  expect(res.status, res.text).toBe(201);
}

async function template(api: ApiClient, body: Record<string, unknown>): Promise<string> {
  const res = await api.post('/v1/templates', { name: 'e2e', ...body });
  expect(res.status, res.text).toBe(201);
  return res.json.templateId as string;
}

const fontsNamed = async (pdf: Uint8Array, pdfName: string) => (await pdfFonts(pdf)).filter((f) => f.name.endsWith(`+${pdfName}`));

/** A loopback HTTP server that only counts who reached it. */
async function startCanary(): Promise<{
  port: number;
  hits: () => { requests: string[]; connections: number };
  close: () => Promise<void>;
}> {
  const requests: string[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
    res.end('CANARY-SECRET');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => ({ requests: [...requests], connections }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('embedded profile: real documents (headers and footers, readiness, assets, safe evaluation)', () => {
  let svc: Svc;
  let canary: Awaited<ReturnType<typeof startCanary>>;

  beforeAll(async () => {
    canary = await startCanary();
    svc = await startEmbedded({
      PRESSROOM_RENDER_TIMEOUT_MS: '3000',
      PRESSROOM_SYNC_TIMEOUT_MS: '20000',
      // Loopback must stay blocked even when an operator lists it.
      PRESSROOM_RENDER_ALLOWED_HOSTS: '127.0.0.1,localhost',
      E2E_ENV_SECRET: ENV_SECRET,
    });
  });
  afterAll(async () => {
    await svc?.app.stop();
    await canary?.close();
  });

  it('stamps a header with an uploaded image and font, and numbered footers, on every page but the cover (point 4)', async () => {
    // Given an uploaded logo (12 x 6 px) and font, and a three-page template whose header uses both
    await upload(svc.api, 'logo.png', 'image/png', solidPng(12, 6, [200, 0, 0]));
    await upload(svc.api, 'Narrow.ttf', 'font/ttf', readFileSync(HEADER_FONT.file));
    const created = await svc.api.post('/v1/templates', {
      name: 'report',
      // The body declares the font but writes in serif: the font can only reach the PDF through the header.
      content:
        `<style>@font-face { font-family: Narrow; src: url(${ASSET}/Narrow.ttf) format("truetype") } body { font-family: serif }</style>` +
        '<h1>Report for <%= it.customer %></h1><p style="break-before: page">Second page</p><p style="break-before: page">Third page</p>',
      header: `<div style="font-family: Narrow"><img src="${ASSET}/logo.png" width="24" height="12"> <%= it.customer %> HEADER</div>`,
      footer: '<div style="text-align: right">Page <%= it.$page %> of <%= it.$pages %></div>',
      pdfParams: { format: 'A4', hasCover: true, margin: { top: '20mm', bottom: '20mm' } },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.templateId as string;
    // it.$page and it.$pages come from the renderer, not from the caller's data
    expect(created.json.variables.names, 'variables the caller must send').toEqual(['customer']);

    // When it renders over the sync endpoint
    const pdf = await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: id, data: { customer: 'ACME Ltd' } }));

    // Then it has three pages; the cover shows the body only, pages 2 and 3 the header and "Page n of 3"
    expect((await pdfInfo(pdf))['Pages']).toBe('3');
    const pages = await Promise.all([1, 2, 3].map((n) => pdfPageText(pdf, n)));
    expect(pages[0]).toContain('Report for ACME Ltd');
    expect(pages[0]).not.toMatch(/HEADER|Page \d of/);
    expect(pages[1]).toContain('Second page');
    expect(pages[1]).toContain('ACME Ltd HEADER');
    expect(pages[1]).toContain('Page 2 of 3');
    expect(pages[2]).toContain('Third page');
    expect(pages[2]).toContain('ACME Ltd HEADER');
    expect(pages[2]).toContain('Page 3 of 3');

    // ... the uploaded font is embedded
    const narrow = await fontsNamed(pdf, HEADER_FONT.pdfName);
    expect(narrow.length, JSON.stringify(await pdfFonts(pdf))).toBeGreaterThan(0);
    expect(narrow.every((f) => f.embedded)).toBe(true);

    // ... and the uploaded logo is drawn on pages 2 and 3, not on the cover
    const logos = (await pdfImages(pdf)).filter((i) => i.width === 12 && i.height === 6);
    expect([...new Set(logos.map((i) => i.page))]).toEqual([2, 3]);
  });

  it('waits for a chart a script draws after a timeout when the template stores a ready expression (point 5)', async () => {
    // Given a template whose chart is drawn 500 ms after load, then signalled through window.chartReady
    const id = await template(svc.api, {
      content:
        '<h1>Quarterly sales</h1><svg id="chart" width="400" height="200"></svg><script>' +
        'setTimeout(() => { document.getElementById("chart").innerHTML =' +
        ' `<rect x="10" y="10" width="100" height="150" fill="#333"/><text x="10" y="190">Q3 revenue <%= it.amount %></text>`;' +
        ' window.chartReady = true; }, 500);</script>',
      ready: { expression: 'window.chartReady === true' },
    });

    // When it renders
    const pdf = await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: id, data: { amount: '1.2M' } }));

    // Then the chart's label is in the PDF
    const text = await pdfText(pdf);
    expect(text).toContain('Quarterly sales');
    expect(text).toContain('Q3 revenue 1.2M');

    // And a stored signal that never comes fails cleanly, naming what it waited for
    const never = await template(svc.api, { content: '<p>never ready</p>', ready: { expression: 'window.neverSet === true' } });
    const timedOut = await svc.api.post('/v1/pdf/sync', { templateId: never });
    expect(timedOut.status, timedOut.text).toBe(504);
    expect(timedOut.json).toMatchObject({ error: { code: 'RENDER_TIMEOUT', message: expect.stringContaining('ready.expression') } });
  });

  it("embeds a body font from the tenant's assets, and another tenant cannot use it (point 6)", async () => {
    // Given tenant A's uploaded font used by its template body through @font-face
    await upload(svc.api, 'Brand.ttf', 'font/ttf', readFileSync(BODY_FONT.file));
    const content =
      `<style>@font-face { font-family: Brand; src: url(${ASSET}/Brand.ttf) format("truetype") } p { font-family: Brand, serif }</style>` +
      '<p>Set in the brand font for <%= it.who %></p>';
    const mine = await template(svc.api, { content });

    // When tenant A renders it
    const pdf = await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: mine, data: { who: 'tenant A' } }));

    // Then pdffonts lists the font as embedded
    expect(await pdfText(pdf)).toContain('Set in the brand font for tenant A');
    const brand = await fontsNamed(pdf, BODY_FONT.pdfName);
    expect(brand.length, JSON.stringify(await pdfFonts(pdf))).toBeGreaterThan(0);
    expect(brand.every((f) => f.embedded)).toBe(true);

    // Given a second tenant with the same template but no such asset
    expect((await svc.admin.post('/admin/v1/tenants', { tenantId: 'umbrella', name: 'Umbrella', plan: 'standard' })).status).toBe(201);
    const key = await svc.admin.post('/admin/v1/tenants/umbrella/keys', { label: 'e2e' });
    expect(key.status, key.text).toBe(201);
    const other = apiClient(svc.baseUrl, key.json.apiKey as string);
    const theirs = await template(other, { content });

    // When it looks for the asset and renders
    expect((await other.get('/v1/assets/Brand.ttf')).status).toBe(404);
    expect((await other.get('/v1/assets/Brand.ttf/content')).status).toBe(404);
    const fallback = await pdfOf(await other.post('/v1/pdf/sync', { templateId: theirs, data: { who: 'tenant B' } }));

    // Then its PDF is printed in the fallback font, without tenant A's
    expect(await pdfText(fallback)).toContain('Set in the brand font for tenant B');
    expect((await pdfFonts(fallback)).some((f) => f.name.includes(BODY_FONT.pdfName))).toBe(false);
  });

  describe('template code cannot reach Node, the network or hang the worker (point 9)', () => {
    const healthy = async (n: number) => {
      // A normal render right afterwards: 200 with a valid PDF
      const id = await template(svc.api, { content: '<p>healthy <%= it.n %></p>' });
      expect(await pdfText(await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: id, data: { n } })))).toContain(`healthy ${n}`);
    };
    const expectCleanFailure = (res: Res, status: number, code: string) => {
      expect(res.status, res.text).toBe(status);
      expect(res.json).toEqual({ message: expect.any(String), error: { code, message: expect.any(String) } });
      expect(res.text).not.toMatch(/\bat .+\.[jt]s:\d+/); // never a stack trace
      expect(res.text).not.toContain(ENV_SECRET);
    };

    it('prints "undefined" where template code looks for process, require or global through the Function constructor', async () => {
      // Given a template probing for Node (testing it.constructor first makes it optional data, so the
      // render passes the door and the code runs in the renderer)
      const id = await template(svc.api, {
        content:
          '<% if (it.constructor) { %><p>process=<%= it.constructor.constructor("return typeof process")() %></p><% } %>' +
          '<p>require=<%= typeof require %></p><p>global=<%= typeof global %></p>',
      });

      // When it renders, Then each probe found nothing
      const text = await pdfText(await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: id, data: {} })));
      expect(text).toContain('process=undefined');
      expect(text).toContain('require=undefined');
      expect(text).toContain('global=undefined');
    });

    it.each([
      [
        'the Function constructor',
        '<% if (it.constructor) { %><p><%= it.constructor.constructor("return process")().env.E2E_ENV_SECRET %></p><% } %>',
      ],
      ['process.env', '<p><%= process.env.E2E_ENV_SECRET %></p>'],
      ['require("fs")', '<% const fs = require("fs") %><p><%= fs.readFileSync("/etc/passwd", "utf8") %></p>'],
    ])('answers 422 TEMPLATE_ERROR when template code reaches for Node through %s, and the worker stays healthy', async (_how, content) => {
      // Given a template that needs Node to work
      const id = await template(svc.api, { content });

      // When it renders over the sync endpoint
      const res = await svc.api.post('/v1/pdf/sync', { templateId: id, data: {} });

      // Then it fails cleanly as a template error, and the next render succeeds
      expectCleanFailure(res, 422, 'TEMPLATE_ERROR');
      await healthy(1);
    });

    it('fails the unguarded Function-constructor escape cleanly: it.constructor is not a variable, and the page has no process', async () => {
      // Given the escape as written, without a test on it.constructor
      const created = await svc.api.post('/v1/templates', {
        name: 'escape',
        content: '<p><%= it.constructor.constructor("return process")().env.E2E_ENV_SECRET %></p>',
      });
      expect(created.status, created.text).toBe(201);
      expect(created.json.variables.names).toEqual([]);

      // When it renders without data
      const res = await svc.api.post('/v1/pdf/sync', { templateId: created.json.templateId });

      // Then the render fails cleanly in the page, nothing of the environment leaks, and the worker is healthy
      expectCleanFailure(res, 422, 'TEMPLATE_ERROR');
      await healthy(1);
    });

    it('renders harmless text when template code calls a loopback server, which sees no hit', async () => {
      // Given a template that fetches, XHRs and embeds the canary on 127.0.0.1 (listed as allowed)
      const base = `http://127.0.0.1:${canary.port}`;
      const id = await template(svc.api, {
        content:
          `<% fetch("${base}/fetch").catch(() => {}) %>` +
          `<% let got; try { const x = new XMLHttpRequest(); x.open("GET", "${base}/xhr", false); x.send(); got = "xhr got " + x.responseText; }` +
          ` catch (e) { got = "xhr blocked"; } %><p><%= got %></p><img src="${base}/img"><p>after the calls</p>`,
      });

      // When it renders, and one more render gives stragglers time to arrive
      const text = await pdfText(await pdfOf(await svc.api.post('/v1/pdf/sync', { templateId: id, data: {} })));
      await healthy(2);

      // Then the page got nothing, and the canary saw nothing
      expect(text).toContain('xhr blocked');
      expect(text).toContain('after the calls');
      expect(text).not.toContain('CANARY-SECRET');
      expect(canary.hits()).toEqual({ requests: [], connections: 0 });
    });

    it('answers 504 RENDER_TIMEOUT for an endless loop, and the worker renders the next job', async () => {
      // Given a template that never ends
      const id = await template(svc.api, { content: '<p>before</p><% while (true) {} %>' });

      // When it renders (3 s render limit, 20 s sync wait)
      const res = await svc.api.post('/v1/pdf/sync', { templateId: id, data: {} });

      // Then the sync call gets the failure, and a normal render right afterwards succeeds
      expectCleanFailure(res, 504, 'RENDER_TIMEOUT');
      await healthy(3);
    });
  });
});
