import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaywrightRenderer, type PlaywrightRenderer } from './index.ts';
import { htmlSource, invoice, templateSource } from './test-support/fixtures.ts';
import { decodePng, pngPixel } from './test-support/png.ts';
import { PDF_MAGIC, PNG_MAGIC, pageSizePts, pdfInfo, pdfText, pngSize } from './test-support/poppler.ts';

// What a user gets back: real files from the real Chromium, read with poppler.
describe('Playwright renderer output', () => {
  let renderer: PlaywrightRenderer;

  beforeAll(async () => {
    renderer = await createPlaywrightRenderer({ pages: 2, recycleAfter: 200, maxOutputBytes: 20_000_000 });
  });
  afterAll(async () => {
    await renderer?.close();
  });

  it('renders a template to a PDF showing the data, escaped by default and raw on request', async () => {
    // Given a template that prints the same value escaped and raw
    const source = templateSource('<h1>Hello <%= it.name %></h1><p>raw: <%~ it.name %></p><p>n=<%= it.items.length %></p>', {
      name: '<b>x</b>',
      items: [1, 2, 3],
    });

    // When it is rendered
    const out = await renderer.render({ source, output: 'pdf', timeoutMs: 15_000 });

    // Then it is a PDF whose text shows the markup literally where escaped, and as markup (bold x) where raw
    expect(out.contentType).toBe('application/pdf');
    expect(Buffer.from(out.bytes.subarray(0, 5)).toString('latin1')).toBe(PDF_MAGIC);
    const text = await pdfText(out.bytes);
    expect(text).toContain('Hello <b>x</b>');
    expect(text).toMatch(/raw: x\s/);
    expect(text).not.toContain('raw: <b>');
    expect(text).toContain('n=3');
  });

  it('prints on A4 by default, lets CSS @page choose another size, and breaks pages', async () => {
    // Given HTML with three forced page breaks, and the same with an @page size
    const pages = '<p>one</p><p style="break-before: page">two</p><p style="break-before: page">three</p>';

    // When both are rendered
    const a4 = await renderer.render({ source: htmlSource(pages), output: 'pdf', timeoutMs: 15_000 });
    const a5 = await renderer.render({
      source: htmlSource(`<style>@page { size: A5 landscape }</style>${pages}`),
      output: 'pdf',
      timeoutMs: 15_000,
    });

    // Then the first has three A4 pages (595 x 842 pt) and the second three A5 landscape pages
    const a4Info = await pdfInfo(a4.bytes);
    expect(a4Info['Pages']).toBe('3');
    expectSize(pageSizePts(a4Info), { width: 595.3, height: 841.9 });
    const a5Info = await pdfInfo(a5.bytes);
    expect(a5Info['Pages']).toBe('3');
    expectSize(pageSizePts(a5Info), { width: 595.3, height: 419.5 });
  });

  it('writes the requested metadata into the PDF info dictionary', async () => {
    // Given metadata for every field
    const pdfMetadata = {
      title: 'Invoice 42',
      author: 'Ada Lovelace',
      subject: 'Monthly invoice',
      keywords: ['invoice', 'march 2024'],
      creator: 'Billing app',
      producer: 'Pressroom test',
    };

    // When a document is rendered with it
    const out = await renderer.render({
      source: htmlSource('<title>From the page</title><p>body</p>'),
      output: 'pdf',
      pdfMetadata,
      timeoutMs: 15_000,
    });

    // Then pdfinfo shows each of them
    const info = await pdfInfo(out.bytes);
    expect(info).toMatchObject({
      Title: 'Invoice 42',
      Author: 'Ada Lovelace',
      Subject: 'Monthly invoice',
      Keywords: 'invoice, march 2024',
      Creator: 'Billing app',
      Producer: 'Pressroom test',
    });
    expect(await pdfText(out.bytes)).toContain('body');
  });

  it("keeps Chromium's own info for the fields not given", async () => {
    // Given only an author
    const out = await renderer.render({
      source: htmlSource('<title>Page title</title><p>body</p>'),
      output: 'pdf',
      pdfMetadata: { author: 'Grace Hopper' },
      timeoutMs: 15_000,
    });

    // Then the title still comes from <title>, and Chromium stays the creator and producer
    const info = await pdfInfo(out.bytes);
    expect(info['Author']).toBe('Grace Hopper');
    expect(info['Title']).toBe('Page title');
    expect(info['Creator']).toBe('Chromium');
    expect(info['Producer']).toMatch(/^Skia\/PDF/);
  });

  it('renders a PNG at the width of an A4 sheet, stacking a multi-page document into one tall image', async () => {
    // Given a document that prints on three pages
    const tall = '<style>section { height: 1000px }</style><section>1</section><section>2</section><section>3</section>';

    // When it is rendered to PNG
    const out = await renderer.render({ source: htmlSource(tall), output: 'png', timeoutMs: 15_000 });

    // Then it is one PNG, 794 px wide, tall enough to hold all three sections
    expect(out.contentType).toBe('image/png');
    expect([...out.bytes.subarray(0, 8)]).toEqual(PNG_MAGIC);
    const size = pngSize(out.bytes);
    expect(size.width).toBe(794);
    expect(size.height).toBeGreaterThanOrEqual(3000);
  });

  it('applies print CSS to PNG output, as in the PDF', async () => {
    // Given content that print CSS makes wide, and a screen-only block
    const html =
      '<style>body { margin: 0 } @media print { .wide { width: 1200px } .screen { display: none } } .wide { height: 50px; background: #000 }</style>' +
      '<div class="wide"></div><div class="screen" style="height: 5000px"></div>';

    // When it is rendered to PNG
    const out = await renderer.render({ source: htmlSource(html), output: 'png', timeoutMs: 15_000 });

    // Then the image follows the print rules: as wide as the content, without the screen-only block
    const size = pngSize(out.bytes);
    expect(size.width).toBe(1200);
    expect(size.height).toBeLessThan(5000);
  });

  it('captures a PNG with its animations at rest: finite ones finished, infinite ones cancelled', async () => {
    // Given two bands animating from red to blue over a minute: one once (kept at its end), one forever
    const html =
      '<style>body { margin: 0 } div { height: 100px } @keyframes fade { from { background: rgb(255, 0, 0) } to { background: rgb(0, 0, 255) } }' +
      ' .once { animation: fade 60s forwards } .loop { animation: fade 60s infinite }</style><div class="once"></div><div class="loop"></div>';

    // When it is rendered to PNG (a fraction of a second into both animations)
    const out = await renderer.render({ source: htmlSource(html), output: 'png', timeoutMs: 15_000 });

    // Then the image shows the document at rest, not a frame of the animations: the finite one at
    // its end (blue), the infinite one cancelled (no background, white)
    expect(pngPixel(out.bytes, 10, 50).rgb).toEqual([0, 0, 255]);
    expect(pngPixel(out.bytes, 10, 150).rgb).toEqual([255, 255, 255]);
  });

  it('encodes PNGs for speed by default, and as small as Chromium can on request: the same pixels either way', async () => {
    const small = await createPlaywrightRenderer({ pages: 1, recycleAfter: 200, maxOutputBytes: 20_000_000, pngEncoding: 'small' });
    try {
      // Given the invoice, rendered to PNG by the default renderer and by one set to `small`
      const job = { source: htmlSource(invoice.html), output: 'png' as const, timeoutMs: 15_000 };
      const fast = await renderer.render(job);
      const compact = await small.render(job);

      // Then both are the same image, pixel for pixel, and the `small` file is the smaller one
      const a = decodePng(fast.bytes);
      const b = decodePng(compact.bytes);
      expect({ width: b.width, height: b.height }).toEqual({ width: a.width, height: a.height });
      expect(a.width).toBe(794);
      expect(b.rgba.equals(a.rgba)).toBe(true);
      expect(compact.bytes.byteLength).toBeLessThan(fast.bytes.byteLength);
    } finally {
      await small.close();
    }
  });

  it('answers ping while the browser is up', async () => {
    await expect(renderer.ping()).resolves.toBeUndefined();
    expect(renderer.stats()).toMatchObject({ size: 2, browserConnected: true });
  });
});

/** Chromium rounds page sizes to its layout units: allow 1.5 pt (A4 and Letter differ by 17 pt). */
function expectSize(actual: { width: number; height: number }, expected: { width: number; height: number }) {
  expect(Math.abs(actual.width - expected.width), `width ${actual.width}`).toBeLessThan(1.5);
  expect(Math.abs(actual.height - expected.height), `height ${actual.height}`).toBeLessThan(1.5);
}
