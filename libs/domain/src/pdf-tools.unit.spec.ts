import { describe, expect, it } from 'vitest';
import {
  formatReduction,
  markdownPageSetup,
  ghostscriptCompressArgs,
  intervalSpans,
  parsePageRanges,
  partFileName,
  pdfVersionText,
  qpdfPageSelection,
  splitSpans,
  toolFileName,
  toolMetadataProblems,
  uploadFileName,
} from './pdf-tools.ts';

describe('split-pdf page ranges', () => {
  it('reads one part per item, in the order given', () => {
    expect(parsePageRanges('1-3,5, 7 - 10')).toEqual({
      spans: [
        { from: 1, to: 3 },
        { from: 5, to: 5 },
        { from: 7, to: 10 },
      ],
    });
  });

  it.each(['', '1,,2', 'a-b', '0-2', '3-1', '1-', '-2', '1;2', '1-2-3'])('refuses %j', (spec) => {
    expect(parsePageRanges(spec)).toHaveProperty('problem');
  });

  it('cuts every N pages, the last part shorter', () => {
    expect(intervalSpans(10, 3)).toEqual([
      { from: 1, to: 3 },
      { from: 4, to: 6 },
      { from: 7, to: 9 },
      { from: 10, to: 10 },
    ]);
    expect(intervalSpans(2, 5)).toEqual([{ from: 1, to: 2 }]);
  });

  it('refuses pages the document does not have, and too many parts', () => {
    expect(splitSpans({ mode: 'ranges', ranges: '1-2,4' }, 3)).toEqual({
      problem: 'The document has 3 pages; pages 4-4 do not exist.',
    });
    expect(splitSpans({ mode: 'intervals', interval: 1 }, 101)).toHaveProperty('problem');
    expect(splitSpans({ mode: 'intervals', interval: 2 }, 3)).toEqual({
      spans: [
        { from: 1, to: 2 },
        { from: 3, to: 3 },
      ],
    });
  });

  it('gives qpdf its page selection', () => {
    expect(qpdfPageSelection({ from: 2, to: 2 })).toBe('2');
    expect(qpdfPageSelection({ from: 2, to: 5 })).toBe('2-5');
  });
});

describe('compress levels', () => {
  it('downsample harder as the level rises, and end the options before the file names', () => {
    const dpi = (level: 'low' | 'medium' | 'high') =>
      Number(
        ghostscriptCompressArgs(level, 'in.pdf', 'out.pdf')
          .find((a) => a.startsWith('-dColorImageResolution='))
          ?.split('=')[1],
      );
    expect(dpi('low')).toBeGreaterThan(dpi('medium'));
    expect(dpi('medium')).toBeGreaterThan(dpi('high'));
    const args = ghostscriptCompressArgs('high', '-evil.pdf', '/tmp/out.pdf');
    expect(args.slice(-2)).toEqual(['--', '-evil.pdf']);
    expect(args).toContain('-dSAFER');
  });

  it('shows the reduction in percent', () => {
    expect(formatReduction(1000, 250)).toBe('75.0%');
    expect(formatReduction(0, 0)).toBe('0%');
  });
});

describe('file names', () => {
  it('sanitise finalFilename and end it in .pdf', () => {
    expect(toolFileName('../../etc/pass wd.pdf', 'req')).toBe('__.._etc_pass_wd.pdf');
    expect(toolFileName('report', 'req')).toBe('report.pdf');
    expect(toolFileName(undefined, 'req-1')).toBe('req-1.pdf');
    expect(partFileName('chapter.pdf', 2)).toBe('chapter_2.pdf');
    expect(uploadFileName('my file (1).pdf', 'x')).toBe('my_file__1_.pdf');
    expect(uploadFileName(undefined, 'x')).toBe('x.pdf');
  });
});

describe('update-pdf-metadata values', () => {
  it('accepts every field of the SDK', () => {
    expect(
      toolMetadataProblems({
        title: 't',
        author: 'a',
        subject: 's',
        keywords: ['k'],
        creator: 'c',
        producer: 'p',
        copyright: '©',
        createDate: '2024-01-02T03:04:05Z',
        modDate: '2024-02-02',
        pdfVersion: 1.7,
        marked: true,
        trapped: 'True',
      }),
    ).toEqual([]);
  });

  it('refuses a bad date, an unknown version and an empty object', () => {
    expect(toolMetadataProblems({ createDate: 'yesterday', pdfVersion: 1.1 }).map((p) => p.field)).toEqual([
      'metadata.createDate',
      'metadata.pdfVersion',
    ]);
    expect(toolMetadataProblems({})).toEqual([{ field: 'metadata', message: 'must set at least one field' }]);
    expect(pdfVersionText(2)).toBe('2.0');
  });
});

describe('markdown-to-pdf page setup', () => {
  it('reads the format in any case and margins as CSS pixels', () => {
    expect(markdownPageSetup({ format: 'letter', margin: { top: 20, left: '1cm' }, landscape: true })).toEqual({
      params: { format: 'Letter', printBackground: true, preferCSSPageSize: false, landscape: true, margin: { top: '20px', left: '1cm' } },
    });
    expect(markdownPageSetup(undefined)).toEqual({ params: { format: 'A4', printBackground: true, preferCSSPageSize: false } });
    expect(markdownPageSetup({ format: 'B5' })).toHaveProperty('problem.field', 'pdfOptions.format');
  });
});
