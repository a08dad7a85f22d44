import type { RenderJob } from '@pressroom/core';
import { describe, expect, it } from 'vitest';
import { suiteRenderer } from './test-support/suite-renderer.ts';
import { memoryAssets, NARROW_FONT } from './test-support/assets.ts';
import { templateSource } from './test-support/fixtures.ts';
import { solidPng } from './test-support/png.ts';
import { pageSizePts, pdfFonts, pdfImages, pdfInfo, pdfPageGray, pdfPageTexts } from './test-support/poppler.ts';

// Headers and footers are Eta templates with the body's data, fonts and images, stamped on every
// page (but the cover) after the body is printed.
describe('Playwright renderer headers and footers', () => {
  const renderer = suiteRenderer();

  const assets = () =>
    memoryAssets({
      'Narrow.ttf': { bytes: NARROW_FONT.bytes, contentType: 'font/ttf' },
      'logo.png': { bytes: solidPng(12, 6, [200, 0, 0]), contentType: 'image/png' },
    });
  // The body declares the asset font but writes in the default serif: the narrow font can only
  // reach the PDF through the header, which uses it by the name the body gave it.
  const body =
    '<style>@font-face { font-family: Narrow; src: url(https://assets.pressroom.invalid/Narrow.ttf) } body { font-family: serif }</style>' +
    '<h1>Report for <%= it.customer %></h1><p style="break-before: page">second</p><p style="break-before: page">third</p>';
  const header =
    '<div style="font-family: Narrow"><img src="https://assets.pressroom.invalid/logo.png" width="24" height="12"> ' +
    '<%= it.customer %> HEADER <%= it.$page %>/<%= it.$pages %></div>';
  const footer = '<div style="text-align: right">FOOTER page <%= it.$page %> of <%= it.$pages %></div>';
  const job = (over: Partial<RenderJob> & { header?: string; footer?: string; content?: string } = {}): RenderJob => ({
    source: {
      ...templateSource(over.content ?? body, { customer: 'ACME Ltd' }),
      ...(over.header === '' ? {} : { header: over.header ?? header }),
      ...(over.footer === '' ? {} : { footer: over.footer ?? footer }),
    },
    output: 'pdf',
    timeoutMs: 15_000,
    assets: assets(),
    ...(over.pdfParams ? { pdfParams: over.pdfParams } : {}),
  });

  it('stamps a header with an asset image and a custom font, and a footer, on every page but the cover', async () => {
    // Given a three-page template whose header shows an asset PNG and text in an asset font
    // When it renders with hasCover
    const out = await renderer().render(job({ pdfParams: { hasCover: true } }));

    // Then page 1 has neither band, and pages 2 and 3 have both, numbered out of 3
    const pages = await pdfPageTexts(out.bytes);
    expect(pages).toHaveLength(3);
    expect(pages[0]).toContain('Report for ACME Ltd');
    expect(pages[0]).not.toMatch(/HEADER|FOOTER/);
    expect(pages[1]).toContain('ACME Ltd HEADER 2/3');
    expect(pages[1]).toContain('FOOTER page 2 of 3');
    expect(pages[2]).toContain('ACME Ltd HEADER 3/3');
    expect(pages[2]).toContain('FOOTER page 3 of 3');

    // ... the custom font is embedded (pdffonts reads the stamped form XObjects too)
    const fonts = await pdfFonts(out.bytes);
    const narrow = fonts.filter((f) => f.name.endsWith(`+${NARROW_FONT.pdfName}`));
    expect(narrow.length, JSON.stringify(fonts)).toBeGreaterThan(0);
    expect(narrow.every((f) => f.embedded)).toBe(true);

    // ... and the logo (12 x 6 px) is drawn on pages 2 and 3 only
    const logos = (await pdfImages(out.bytes)).filter((i) => i.width === 12 && i.height === 6);
    expect([...new Set(logos.map((i) => i.page))]).toEqual([2, 3]);
  });

  it('leaves the body visible under the bands (the stamped sheets are transparent)', async () => {
    // Given a body filled with black below a 30 mm header band
    const black = '<style>body { margin: 0 } div { height: 3000px; background: #000 }</style><div></div>';

    // When it renders with a header and footer
    const out = await renderer().render(job({ content: black, pdfParams: { margin: { top: '30mm', bottom: '30mm' } } }));

    // Then the body is still black in the middle of each page, and the header band is light
    for (const n of [1, 2]) {
      const gray = await pdfPageGray(out.bytes, n);
      expect(gray.at(0.5, 0.5), `page ${n} middle`).toBeLessThan(50);
      expect(gray.at(0.9, 0.02), `page ${n} header band`).toBeGreaterThan(200);
    }
    expect((await pdfPageTexts(out.bytes))[1]).toContain('HEADER 2/');
  });

  it('numbers the printed pages when page ranges select some, and stamps every page without hasCover', async () => {
    // Given the three-page template
    // When it renders pages 2-3 only
    const out = await renderer().render(job({ pdfParams: { pageRanges: '2-3' } }));

    // Then both printed pages have bands, numbered 1/2 and 2/2
    const pages = await pdfPageTexts(out.bytes);
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain('HEADER 1/2');
    expect(pages[0]).toContain('second');
    expect(pages[1]).toContain('HEADER 2/2');
  });

  it.each([
    [{ format: 'A5' }, { width: 419.53, height: 595.28 }],
    [
      { format: 'Letter', landscape: true, margin: { top: '1in', bottom: '0.5in', left: '1in', right: '1in' } },
      { width: 792, height: 612 },
    ],
    [
      { width: '100mm', height: '60mm', margin: { top: '10mm', bottom: '10mm' } },
      { width: 283.46, height: 170.08 },
    ],
    [
      { format: 'A3', scale: 0.5 },
      { width: 841.89, height: 1190.55 },
    ],
  ] as const)('stamps one sheet per page on %j', async (pdfParams, size) => {
    // Given the three-page template and a page setup
    // When it renders
    const out = await renderer().render(job({ pdfParams }));

    // Then the size and page count are the body's, and every page has its header and footer
    const info = await pdfInfo(out.bytes);
    expect(info['Pages']).toBe('3');
    const actual = pageSizePts(info);
    expect(Math.abs(actual.width - size.width)).toBeLessThan(1.5);
    expect(Math.abs(actual.height - size.height)).toBeLessThan(1.5);
    const pages = await pdfPageTexts(out.bytes);
    pages.forEach((text, i) => {
      expect(text).toContain(`HEADER ${i + 1}/3`);
      expect(text).toContain(`FOOTER page ${i + 1} of 3`);
    });
  });

  it('follows a size set by CSS @page, and works with only a footer or only a header', async () => {
    // Given a body that sets its own size
    const content = `<style>@page { size: A5 }</style>${body}`;

    // When it renders with only a footer, then with only a header
    const footerOnly = await renderer().render(job({ content, header: '' }));
    const headerOnly = await renderer().render(job({ content, footer: '' }));

    // Then each page is A5 and carries just the band asked for
    const size = pageSizePts(await pdfInfo(footerOnly.bytes));
    expect(Math.abs(size.width - 419.53)).toBeLessThan(1.5);
    const footerPages = await pdfPageTexts(footerOnly.bytes);
    expect(footerPages[2]).toContain('FOOTER page 3 of 3');
    expect(footerPages.join('')).not.toContain('HEADER');
    const headerPages = await pdfPageTexts(headerOnly.bytes);
    expect(headerPages[0]).toContain('HEADER 1/3');
    expect(headerPages.join('')).not.toContain('FOOTER');
  });

  it('adds nothing to a one-page document with a cover', async () => {
    // Given a one-page body with a header and hasCover
    const out = await renderer().render(job({ content: '<p>only page</p>', pdfParams: { hasCover: true } }));

    // Then the page shows just the body
    const pages = await pdfPageTexts(out.bytes);
    expect(pages).toHaveLength(1);
    expect(pages[0]?.trim()).toBe('only page');
  });

  it('writes the requested metadata into a stamped PDF', async () => {
    // Given a job with a footer and metadata
    const out = await renderer().render({ ...job(), pdfMetadata: { title: 'Stamped', author: 'Ada' } });

    // Then both the footer and the metadata are there
    expect(await pdfInfo(out.bytes)).toMatchObject({ Title: 'Stamped', Author: 'Ada', Pages: '3' });
    expect((await pdfPageTexts(out.bytes))[0]).toContain('FOOTER page 1 of 3');
  });
});
