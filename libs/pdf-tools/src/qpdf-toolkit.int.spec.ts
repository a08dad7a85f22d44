import { describe, expect, it } from 'vitest';
import { PdfToolFailure } from '@pressroom/core';
import { createQpdfToolkit } from './qpdf-toolkit.ts';
import { everyToolMetadataField, everyToolMetadataFieldInfo, imagePdf, textPdf } from '../../../test/support/pdf-fixtures.ts';
import { pdfInfo, pdfPageText } from '../../../test/support/pdf-tools.ts';

const toolkit = createQpdfToolkit({ timeoutMs: 20_000 });

describe('qpdf/Ghostscript toolkit (real programs)', () => {
  it('merges in order and splits into the spans asked for', async () => {
    const merged = await toolkit.merge([await textPdf('A', 2), await textPdf('B', 1)]);
    expect(await toolkit.pageCount(merged)).toBe(3);
    expect(await pdfPageText(merged, 3)).toContain('Page 1 of B');
    const parts = await toolkit.split(merged, [
      { from: 1, to: 1 },
      { from: 2, to: 3 },
    ]);
    expect(parts).toHaveLength(2);
    expect((await pdfInfo(parts[1]!)).Pages).toBe('2');
    expect(await pdfPageText(parts[1]!, 2)).toContain('Page 1 of B');
  });

  it('shrinks a document with a large image, and keeps its text', async () => {
    const original = await imagePdf();
    const compressed = await toolkit.compress(original, 'high');
    expect(compressed.byteLength).toBeLessThan(original.byteLength / 2);
    expect(await pdfPageText(compressed, 1)).toContain('Photo report');
  });

  it('writes every metadata field', async () => {
    const out = await toolkit.updateMetadata(await textPdf('M', 1), everyToolMetadataField);
    const info = await pdfInfo(out);
    expect(info).toMatchObject(everyToolMetadataFieldInfo);
    expect(info.Keywords).toContain('finance');
    expect(info.CreationDate).toContain('2024');
    expect(Buffer.from(out).toString('latin1')).toMatch(/\/Trapped\s*\/True/);
  });

  it('refuses garbage as INPUT_INVALID, without starting Ghostscript on it', async () => {
    const garbage = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF');
    for (const call of [
      () => toolkit.compress(garbage, 'low'),
      () => toolkit.merge([garbage, garbage]),
      () => toolkit.pageCount(Buffer.from('hello')),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PdfToolFailure);
      expect((err as PdfToolFailure).code).toBe('INPUT_INVALID');
    }
  });
});
