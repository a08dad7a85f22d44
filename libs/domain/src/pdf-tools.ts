import type { PdfParams, ToolMetadata } from '@pressroom/schemas';

/**
 * Pure rules of the PDF tools (`/v1/tools/*`): page ranges and intervals of split-pdf, the
 * compression levels, file names, link lifetimes and metadata values. No I/O here; the programs
 * (qpdf, Ghostscript) run in libs/pdf-tools, driven by what these functions decide.
 */

/** The tools, by the last segment of their endpoint. */
export type PdfToolName = 'merge-pdfs' | 'split-pdf' | 'compress-pdf' | 'update-pdf-metadata' | 'convert-markdown-to-pdf';

/** `expiration` of a tool's link, in seconds (the real API's bounds and default). */
export const TOOL_EXPIRATION = { min: 60, max: 604_800, default: 3600 } as const;

/** A part of a document: pages `from` to `to`, 1-based and inclusive. */
export interface PageSpan {
  from: number;
  to: number;
}

/** Most parts one split may make (each is a file). */
export const MAX_SPLIT_PARTS = 100;

/**
 * `ranges` of split-pdf (`"1-3,5,7-10"`): one part per comma-separated item, in the order given.
 * Syntax only; whether the pages exist is known once the document is read (`checkSpans`).
 */
export function parsePageRanges(spec: string): { spans: PageSpan[] } | { problem: string } {
  const items = spec.split(',').map((s) => s.trim());
  if (items.length === 0 || items.some((s) => s === '')) return { problem: 'must be page ranges such as "1-3,5,7-10"' };
  if (items.length > MAX_SPLIT_PARTS) return { problem: `may name at most ${MAX_SPLIT_PARTS} parts` };
  const spans: PageSpan[] = [];
  for (const item of items) {
    const m = /^(\d{1,6})(?:\s*-\s*(\d{1,6}))?$/.exec(item);
    if (!m) return { problem: `"${item}" is not a page or a range of pages (such as 7-10)` };
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < 1) return { problem: 'pages are numbered from 1' };
    if (to < from) return { problem: `"${item}" ends before it starts` };
    spans.push({ from, to });
  }
  return { spans };
}

/** Parts of `interval` pages each (the last may be shorter): interval 3 on 10 pages → 1-3, 4-6, 7-9, 10. */
export function intervalSpans(pageCount: number, interval: number): PageSpan[] {
  const spans: PageSpan[] = [];
  for (let from = 1; from <= pageCount; from += interval) spans.push({ from, to: Math.min(pageCount, from + interval - 1) });
  return spans;
}

/** Why the spans cannot be cut from a document of `pageCount` pages, or undefined when they can. */
export function spanProblem(spans: readonly PageSpan[], pageCount: number): string | undefined {
  if (spans.length > MAX_SPLIT_PARTS) return `The split would make ${spans.length} parts; at most ${MAX_SPLIT_PARTS} are allowed.`;
  const beyond = spans.find((s) => s.to > pageCount);
  if (beyond) return `The document has ${pageCount} page${pageCount === 1 ? '' : 's'}; pages ${beyond.from}-${beyond.to} do not exist.`;
  return undefined;
}

/** The spans of a split request, for a document of `pageCount` pages. */
export function splitSpans(
  plan: { mode: 'ranges'; ranges: string } | { mode: 'intervals'; interval: number },
  pageCount: number,
): { spans: PageSpan[] } | { problem: string } {
  if (plan.mode === 'intervals') {
    const spans = intervalSpans(pageCount, plan.interval);
    const problem = spanProblem(spans, pageCount);
    return problem ? { problem } : { spans };
  }
  const parsed = parsePageRanges(plan.ranges);
  if ('problem' in parsed) return parsed;
  const problem = spanProblem(parsed.spans, pageCount);
  return problem ? { problem } : parsed;
}

/** qpdf's page selection for a span (`--pages in.pdf 3-5 --`). */
export function qpdfPageSelection(span: PageSpan): string {
  return span.from === span.to ? String(span.from) : `${span.from}-${span.to}`;
}

export type CompressLevel = 'low' | 'medium' | 'high';

/**
 * What each level does to the images of a document, through Ghostscript's pdfwrite: colour and
 * grey images above `dpi` × 1.5 are downsampled to `dpi` (bicubic) and re-encoded as JPEG at
 * `jpegQuality`; fonts are subset, duplicate objects merged. Vector text stays vector at every level.
 */
export const COMPRESS_LEVELS: Record<CompressLevel, { dpi: number; jpegQuality: number }> = {
  low: { dpi: 200, jpegQuality: 85 },
  medium: { dpi: 150, jpegQuality: 70 },
  high: { dpi: 96, jpegQuality: 50 },
};

/** Ghostscript arguments (no shell; every value is ours, none is the tenant's) for a level. */
export function ghostscriptCompressArgs(level: CompressLevel, input: string, output: string): string[] {
  const { dpi, jpegQuality } = COMPRESS_LEVELS[level];
  const images = (kind: 'Color' | 'Gray') => [
    `-dDownsample${kind}Images=true`,
    `-d${kind}ImageDownsampleType=/Bicubic`,
    `-d${kind}ImageResolution=${dpi}`,
    `-d${kind}ImageDownsampleThreshold=1.5`,
    `-dAutoFilter${kind}Images=false`,
    `-d${kind}ImageFilter=/DCTEncode`,
  ];
  return [
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-dQUIET',
    '-dNOPROMPT',
    '-sDEVICE=pdfwrite',
    '-dCompatibilityLevel=1.7',
    '-dDetectDuplicateImages=true',
    '-dSubsetFonts=true',
    '-dCompressFonts=true',
    ...images('Color'),
    ...images('Gray'),
    '-dDownsampleMonoImages=true',
    `-dMonoImageResolution=${Math.max(dpi * 2, 300)}`,
    `-dJPEGQ=${jpegQuality}`,
    `-sOutputFile=${output}`,
    // `--` ends the options: a file name can never be read as one.
    '--',
    input,
  ];
}

/** Sizes as the real API shows them (`"1.23 MB"`), and the reduction in percent (`"42.1%"`). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(2)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
}

export function formatReduction(originalBytes: number, compressedBytes: number): string {
  if (originalBytes <= 0) return '0%';
  return `${(((originalBytes - compressedBytes) / originalBytes) * 100).toFixed(1)}%`;
}

/**
 * The file name a tool's result is given: `finalFilename` with anything but letters, digits,
 * dots, hyphens and underscores replaced by `_` (as the real API does), ending in `.pdf`;
 * `fallback` (the request id) when none is given.
 */
export function toolFileName(finalFilename: string | undefined, fallback: string): string {
  const base = (finalFilename ?? '').trim().replace(/\.pdf$/i, '');
  const safe = base
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 200);
  return `${safe === '' ? fallback : safe}.pdf`;
}

/** Parts of a split are named `{name}_{n}.pdf`, n from 1. */
export function partFileName(fileName: string, n: number): string {
  return `${fileName.replace(/\.pdf$/i, '')}_${n}.pdf`;
}

/** The upload name of get-signed-upload-url: sanitised like a result's name, any extension kept. */
export function uploadFileName(fileName: string | undefined, fallback: string): string {
  const safe = (fileName ?? '')
    .trim()
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 200);
  return safe === '' ? `${fallback}.pdf` : safe;
}

/** The metadata fields of update-pdf-metadata, as the SDK's UpdatePdfMetadataPayload names them. */
export type PdfToolMetadata = ToolMetadata;

/** PDF versions a document can be written as (`pdfVersion`). */
export const PDF_VERSIONS = [1.3, 1.4, 1.5, 1.6, 1.7, 2.0] as const;

/** Problems of a metadata object, as `metadata.<field>` messages (empty when it is usable). */
export function toolMetadataProblems(m: PdfToolMetadata): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  for (const field of ['createDate', 'modDate'] as const) {
    const v = m[field];
    if (v !== undefined && Number.isNaN(Date.parse(v))) problems.push({ field: `metadata.${field}`, message: 'must be a date (ISO 8601)' });
  }
  if (m.pdfVersion !== undefined && !PDF_VERSIONS.some((v) => v === m.pdfVersion)) {
    problems.push({ field: 'metadata.pdfVersion', message: `must be one of ${PDF_VERSIONS.join(', ')}` });
  }
  if (Object.values(m).every((v) => v === undefined)) problems.push({ field: 'metadata', message: 'must set at least one field' });
  return problems;
}

/** qpdf's `--force-version` value for a `pdfVersion` (2 → "2.0"). */
export function pdfVersionText(version: number): string {
  return version.toFixed(1);
}

/** Formats of markdown-to-pdf's `pdfOptions.format`, matched in any case. */
const FORMATS = ['A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid'] as const;

/** markdown-to-pdf's `pdfOptions` (the SDK's MarkdownPdfOptions). */
export interface MarkdownPdfOptions {
  format?: string;
  landscape?: boolean;
  scale?: number;
  printBackground?: boolean;
  pageRanges?: string;
  margin?: { top?: string | number; right?: string | number; bottom?: string | number; left?: string | number };
}

/**
 * Our page setup for `pdfOptions`: the format in any case, margins given as numbers read as CSS
 * pixels (as Chromium does), backgrounds printed unless turned off, and a format beating any
 * CSS `@page` size of `customCss` (Chromium's default).
 */
export function markdownPageSetup(
  o: MarkdownPdfOptions | undefined,
): { params: PdfParams } | { problem: { field: string; message: string } } {
  const params: PdfParams = { format: 'A4', printBackground: true, preferCSSPageSize: false };
  if (!o) return { params };
  if (o.format !== undefined) {
    const format = FORMATS.find((f) => f.toLowerCase() === o.format!.trim().toLowerCase());
    if (!format) return { problem: { field: 'pdfOptions.format', message: `must be one of ${FORMATS.join(', ')}` } };
    params.format = format;
  }
  if (o.landscape !== undefined) params.landscape = o.landscape;
  if (o.scale !== undefined) params.scale = o.scale;
  if (o.printBackground !== undefined) params.printBackground = o.printBackground;
  if (o.pageRanges !== undefined) params.pageRanges = o.pageRanges;
  if (o.margin) {
    const margin: NonNullable<PdfParams['margin']> = {};
    for (const side of ['top', 'right', 'bottom', 'left'] as const) {
      const v = o.margin[side];
      if (v !== undefined) margin[side] = typeof v === 'number' ? `${v}px` : v.trim();
    }
    params.margin = margin;
  }
  return { params };
}
