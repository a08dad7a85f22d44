import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaywrightRenderer, type PlaywrightRenderer } from './index.ts';
import { htmlSource, invoice, templateSource } from './test-support/fixtures.ts';
import { pageSizePts, pdfInfo, pdfText } from './test-support/poppler.ts';

// The shared benchmark invoice: the Eta twin (test/fixtures/invoice/invoice.eta) rendered in the
// page must print exactly what the static invoice.html prints.
describe('the invoice fixture', () => {
  let renderer: PlaywrightRenderer;

  beforeAll(async () => {
    renderer = await createPlaywrightRenderer({ pages: 1, recycleAfter: 200, maxOutputBytes: 10_000_000 });
  });
  afterAll(async () => {
    await renderer?.close();
  });

  it('prints the same text on the same two A4 pages from the template as from the static HTML', async () => {
    // Given the invoice as an Eta template with its data, and as static HTML
    // When both are rendered to PDF
    const fromTemplate = await renderer.render({
      source: templateSource(invoice.template, invoice.data),
      output: 'pdf',
      timeoutMs: 30_000,
    });
    const fromHtml = await renderer.render({ source: htmlSource(invoice.html), output: 'pdf', timeoutMs: 30_000 });

    // Then pdftotext reads the same text from both, with the computed totals in it
    const templateText = await pdfText(fromTemplate.bytes);
    expect(templateText).toBe(await pdfText(fromHtml.bytes));
    expect(templateText).toContain('INV-2024-004817');
    expect(templateText).toContain('England & Wales');
    expect(templateText).toContain('225,648.06');

    // ... on two A4 pages each
    for (const pdf of [fromTemplate.bytes, fromHtml.bytes]) {
      const info = await pdfInfo(pdf);
      expect(info['Pages']).toBe('2');
      const size = pageSizePts(info);
      expect(Math.abs(size.width - 595.3)).toBeLessThan(1.5);
      expect(Math.abs(size.height - 841.9)).toBeLessThan(1.5);
    }
  });
});
