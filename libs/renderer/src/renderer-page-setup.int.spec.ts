import type { RenderJob } from '@pressroom/core';
import { describe, expect, it } from 'vitest';
import { suiteRenderer } from './test-support/suite-renderer.ts';
import { htmlSource } from './test-support/fixtures.ts';
import { pngPixel } from './test-support/png.ts';
import { pageSizePts, pdfInfo, pdfPageGray, pdfPageTexts, pdfText, pngSize } from './test-support/poppler.ts';

// Page setup (PdfParams) on the real Chromium, read back with poppler.
describe('Playwright renderer page setup', () => {
  const renderer = suiteRenderer();

  const threePages = '<p>one</p><p style="break-before: page">two</p><p style="break-before: page">three</p>';
  const pdf = async (html: string, pdfParams: RenderJob['pdfParams']) =>
    (await renderer().render({ source: htmlSource(html), output: 'pdf', ...(pdfParams ? { pdfParams } : {}), timeoutMs: 15_000 })).bytes;

  it.each([
    [
      { format: 'Letter', landscape: true },
      { width: 792, height: 612 },
    ],
    [{ format: 'A5' }, { width: 419.53, height: 595.28 }],
    [
      { format: 'A3', landscape: true },
      { width: 1190.55, height: 841.89 },
    ],
    [{ format: 'Legal' }, { width: 612, height: 1008 }],
    [{ format: 'Tabloid' }, { width: 792, height: 1224 }],
    [{ format: 'A6' }, { width: 297.64, height: 419.53 }],
    [
      { width: '100mm', height: '50mm' },
      { width: 283.46, height: 141.73 },
    ],
    [
      { width: '4in', height: '6in', landscape: true },
      { width: 432, height: 288 },
    ],
  ] as const)('prints %j on sheets of %j pt', async (pdfParams, size) => {
    // Given a three-page document and a page setup
    // When it prints
    const info = await pdfInfo(await pdf(threePages, pdfParams));

    // Then every page has the asked size
    expect(info['Pages']).toBe('3');
    expectSize(pageSizePts(info), size);
  });

  it('lets the format win over CSS @page by default (as Chromium and Puppeteer), and CSS when preferCSSPageSize is true', async () => {
    // Given a document whose CSS asks for a 100 mm square
    const html = `<style>@page { size: 100mm 100mm }</style>${threePages}`;

    // When it prints with format Letter, CSS preferred and not (the default)
    const cssWins = await pdfInfo(await pdf(html, { format: 'Letter', preferCSSPageSize: true }));
    const formatWins = await pdfInfo(await pdf(html, { format: 'Letter' }));

    // Then the CSS size wins in the first and Letter in the second
    expectSize(pageSizePts(cssWins), { width: 283.46, height: 283.46 });
    expectSize(pageSizePts(formatWins), { width: 612, height: 792 });
  });

  it('prints only the page ranges asked for, and refuses ranges that select nothing with TEMPLATE_ERROR', async () => {
    // Given the three-page document
    // When it prints pages 1 and 3 (and a range past the end, which Chromium ignores beside a valid one)
    const some = await pdf(threePages, { pageRanges: '1, 3-7' });

    // Then the PDF has those two pages
    expect((await pdfPageTexts(some)).map((t) => t.trim())).toEqual(['one', 'three']);

    // ... and a range past the end or backwards fails as the request's fault, leaving the renderer working
    for (const pageRanges of ['5-9', '3-1']) {
      await expect(
        renderer().render({ source: htmlSource(threePages), output: 'pdf', pdfParams: { pageRanges }, timeoutMs: 15_000 }),
      ).rejects.toMatchObject({ code: 'TEMPLATE_ERROR', message: expect.stringContaining(`pageRanges "${pageRanges}"`) as unknown });
    }
    expect(await pdfText(await pdf('<p>next</p>', {}))).toContain('next');
  });

  it('leaves the margins blank and scales the content', async () => {
    // Given a page filled with black (a 2000 px tall black block fills any A4 page)
    const black = '<style>body { margin: 0 } div { height: 2000px; background: #000 }</style><div></div>';

    // When it prints with wide margins, and with none
    const margins = await pdfPageGray(await pdf(black, { margin: { top: '50mm', right: '40mm', bottom: '30mm', left: '40mm' } }), 1);
    const none = await pdfPageGray(await pdf(black, {}), 1);

    // Then the margins are white and the content black, and without margins the corner is black too
    expect(margins.at(0.05, 0.05)).toBeGreaterThan(200); // top left, inside the margins
    expect(margins.at(0.5, 0.1)).toBeGreaterThan(200); // 10 % down: inside the 50 mm top margin (17 %)
    expect(margins.at(0.5, 0.95)).toBeGreaterThan(200); // inside the 30 mm bottom margin (10 %)
    expect(margins.at(0.5, 0.5)).toBeLessThan(50);
    expect(none.at(0.05, 0.05)).toBeLessThan(50);

    // ... and at scale 0.5 a block 600 px wide covers well under half of a 794 px wide sheet
    const half = await pdfPageGray(
      await pdf('<style>body { margin: 0 } div { width: 600px; height: 300px; background: #000 }</style><div></div>', { scale: 0.5 }),
      1,
    );
    expect(half.at(0.3, 0.1)).toBeLessThan(50);
    expect(half.at(0.5, 0.1)).toBeGreaterThan(200);
  });

  it('prints backgrounds unless printBackground is false', async () => {
    // Given a black background
    const html = '<style>html { background: #000 } body { margin: 0; height: 500px }</style>';

    // When it prints with the default and with printBackground false
    const withBg = await pdfPageGray(await pdf(html, {}), 1);
    const withoutBg = await pdfPageGray(await pdf(html, { printBackground: false }), 1);

    // Then the first is black and the second white
    expect(withBg.at(0.5, 0.5)).toBeLessThan(50);
    expect(withoutBg.at(0.5, 0.5)).toBeGreaterThan(200);
  });

  it('emulates print media by default and screen media on request, in PDF and PNG, and restores print for the next job', async () => {
    // Given a document that says which media it sees
    const html =
      '<style>.s { display: none } @media screen { .s { display: block } .p { display: none } }</style><p class="p">MEDIA-PRINT</p><p class="s">MEDIA-SCREEN</p>';

    // When it prints with screen media, then with the default
    const screen = await pdfText(await pdf(html, { emulatedMedia: 'screen' }));
    const print = await pdfText(await pdf(html, {}));

    // Then each saw its own media
    expect(screen).toContain('MEDIA-SCREEN');
    expect(screen).not.toContain('MEDIA-PRINT');
    expect(print).toContain('MEDIA-PRINT');
    expect(print).not.toContain('MEDIA-SCREEN');

    // ... and a PNG with screen media is laid out by screen CSS too (the screen block is 3000 px tall)
    const tall =
      '<style>body { margin: 0 } .s { display: none; height: 3000px } @media screen { .s { display: block } }</style><div class="s"></div>';
    const png = await renderer().render({
      source: htmlSource(tall),
      output: 'png',
      pdfParams: { emulatedMedia: 'screen' },
      timeoutMs: 15_000,
    });
    expect(pngSize(png.bytes).height).toBeGreaterThanOrEqual(3000);
  });

  it('lays a PNG out at the width of the sheet asked for', async () => {
    // Given a document as wide as its viewport
    const html = '<style>body { margin: 0 } div { height: 10px }</style><div></div>';

    // When it renders to PNG on Letter landscape, on A5, then with no page setup
    const width = async (pdfParams: RenderJob['pdfParams']) =>
      pngSize(
        (await renderer().render({ source: htmlSource(html), output: 'png', ...(pdfParams ? { pdfParams } : {}), timeoutMs: 15_000 }))
          .bytes,
      ).width;

    // Then the image is 1056, 559 and 794 px wide (11 in, 148 mm, 210 mm at 96 dpi)
    expect(await width({ format: 'Letter', landscape: true })).toBe(1056);
    expect(await width({ format: 'A5' })).toBe(559);
    expect(await width(undefined)).toBe(794);
  });

  it('survives odd but valid combinations', async () => {
    // Given combinations the schema allows
    const odd: RenderJob['pdfParams'][] = [
      { width: '1in', height: '1in', scale: 0.1, margin: { top: '0', right: '0', bottom: '0', left: '0' } },
      { format: 'Tabloid', landscape: true, scale: 2, pageRanges: '1-1000' },
      { format: 'A6', margin: { top: '70mm', bottom: '70mm' }, hasCover: true },
      { width: '2000px', height: '40px', preferCSSPageSize: false, printBackground: false, emulatedMedia: 'screen' },
    ];

    // When each renders, Then each gives a PDF with pages
    for (const pdfParams of odd) {
      const info = await pdfInfo(await pdf(threePages, pdfParams));
      expect(Number(info['Pages']), JSON.stringify(pdfParams)).toBeGreaterThanOrEqual(1);
    }

    // ... and margins that leave no room fail cleanly, and the renderer goes on
    await expect(
      renderer().render({
        source: htmlSource(threePages),
        output: 'pdf',
        pdfParams: { format: 'A6', margin: { top: '80mm', bottom: '80mm' } },
        timeoutMs: 15_000,
      }),
    ).rejects.toMatchObject({ code: 'PAGE_SETUP_INVALID' });
    expect(await pdfText(await pdf('<p>after</p>', undefined))).toContain('after');
  });

  it('omitBackground leaves a PNG transparent where the page paints nothing (and the next render white again)', async () => {
    // Given a page that paints nothing at its top-left corner
    const html = '<p style="margin: 200px">ink</p>';
    const png = async (omitBackground?: boolean) =>
      (
        await renderer().render({
          source: htmlSource(html),
          output: 'png',
          pdfParams: omitBackground === undefined ? {} : { omitBackground },
          timeoutMs: 15_000,
        })
      ).bytes;

    // When it is captured with omitBackground, then without on the same (only) page
    const clear = pngPixel(await png(true), 0, 0);
    const white = pngPixel(await png(), 0, 0);

    // Then the corner is transparent in the first and opaque white in the second
    expect(clear.alpha).toBe(0);
    expect(white).toEqual({ rgb: [255, 255, 255], alpha: 255 });
  });

  it('prints the outline (bookmarks) and a tagged PDF when asked', async () => {
    const html = '<h1>Alpha</h1><h2 style="break-before: page">Beta</h2>';
    const plain = await pdfInfo(await pdf(html, {}));
    const rich = await pdfInfo(await pdf(html, { outline: true, tagged: true }));
    expect(plain['Tagged']).toBe('no');
    expect(rich['Tagged']).toBe('yes');
    const { PDFDocument, PDFName } = await import('pdf-lib');
    const doc = await PDFDocument.load(await pdf(html, { outline: true }));
    expect(doc.catalog.get(PDFName.of('Outlines'))).toBeDefined();
  });
});

/** Chromium rounds page sizes to its layout units: allow 1.5 pt. */
function expectSize(actual: { width: number; height: number }, expected: { width: number; height: number }) {
  expect(Math.abs(actual.width - expected.width), `width ${actual.width}`).toBeLessThan(1.5);
  expect(Math.abs(actual.height - expected.height), `height ${actual.height}`).toBeLessThan(1.5);
}
