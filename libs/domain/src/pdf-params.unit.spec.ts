import { describe, expect, it } from 'vitest';
import { lengthInPoints, mergePdfParams, pdfParamsProblems } from './pdf-params.ts';

describe('mergePdfParams', () => {
  it('lets the request win field by field and margin side by side', () => {
    expect(
      mergePdfParams(
        { format: 'A4', landscape: false, margin: { top: '10mm', bottom: '10mm' }, printBackground: true },
        { landscape: true, margin: { top: '2cm' } },
      ),
    ).toEqual({ format: 'A4', landscape: true, margin: { top: '2cm', bottom: '10mm' }, printBackground: true });
  });

  it('replaces a size given the other way', () => {
    expect(mergePdfParams({ width: '100mm', height: '50mm', scale: 1 }, { format: 'Letter' })).toEqual({ format: 'Letter', scale: 1 });
    expect(mergePdfParams({ format: 'A5' }, { width: '4in', height: '6in' })).toEqual({ width: '4in', height: '6in' });
  });

  it('is undefined when neither side has anything', () => {
    expect(mergePdfParams(undefined, undefined)).toBeUndefined();
    expect(mergePdfParams(undefined, { scale: 0.5 })).toEqual({ scale: 0.5 });
  });
});

describe('pdfParamsProblems', () => {
  it('names the field a cross-field rule breaks', () => {
    // One side alone keeps the format's other side (Puppeteer's rule).
    expect(pdfParamsProblems({ width: '10cm' })).toEqual([]);
    expect(pdfParamsProblems({ height: '0.1in' })[0]?.field).toBe('pdfParams.height');
    expect(pdfParamsProblems({ width: '0', height: '1in' })).toEqual([{ field: 'pdfParams.width', message: 'must be greater than 0' }]);
    expect(pdfParamsProblems({ pageRanges: '3-1' })[0]?.field).toBe('pdfParams.pageRanges');
    expect(pdfParamsProblems({ pageRanges: '0' })[0]?.message).toBe('pages count from 1');
    expect(pdfParamsProblems({ format: 'A4', pageRanges: '1-2, 4', width: '1in', height: '2in' })).toEqual([]);
  });

  it('refuses sheets and margins no reader can show (over 200 in) and slivers (under 0.25 in)', () => {
    expect(pdfParamsProblems({ width: '100000mm', height: '10cm' })).toEqual([
      { field: 'pdfParams.width', message: 'must be at most 200in (5080mm)' },
    ]);
    expect(pdfParamsProblems({ width: '10cm', height: '0.01mm' })).toEqual([
      { field: 'pdfParams.height', message: 'must be at least 0.25in (6.35mm)' },
    ]);
    expect(pdfParamsProblems({ margin: { top: '99999999mm' } })).toEqual([
      { field: 'pdfParams.margin.top', message: 'must be at most 200in (5080mm)' },
    ]);
    expect(pdfParamsProblems({ width: '200in', height: '0.25in', margin: { left: '5080mm' } })).toEqual([]);
  });

  it('converts lengths to points', () => {
    expect(lengthInPoints('1in')).toBe(72);
    expect(lengthInPoints('96px')).toBe(72);
    expect(lengthInPoints('25.4mm')).toBeCloseTo(72);
  });
});
