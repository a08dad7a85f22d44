import type { PdfParams } from '@pressroom/schemas';
import type { FieldProblem } from './errors.ts';

/**
 * The page setup of a render: the template's, then the request's, field by field; margins
 * side by side. A size given one way replaces the other: a request `format` drops the
 * template's width/height, a request width/height drops the template's `format`.
 */
export function mergePdfParams(template: PdfParams | undefined, request: PdfParams | undefined): PdfParams | undefined {
  if (!template && !request) return undefined;
  const base: PdfParams = { ...(template ?? {}) };
  const over = request ?? {};
  if (over.format !== undefined) {
    delete base.width;
    delete base.height;
  }
  if (over.width !== undefined || over.height !== undefined) delete base.format;
  const margin = base.margin || over.margin ? { ...(base.margin ?? {}), ...(over.margin ?? {}) } : undefined;
  const merged: PdfParams = { ...base, ...over, ...(margin ? { margin } : {}) };
  return Object.keys(merged).length ? merged : undefined;
}

/**
 * The sheet sizes Pressroom prints, in PDF points: from a quarter inch to 200 inches a side.
 * 200 in is the largest page PDF readers (Acrobat's limit, 14,400 units) display; beyond it
 * Chromium's printing and screenshots fail or take minutes, so such a size is the request's
 * fault and is refused before any rendering.
 */
export const PAGE_SIDE_LIMITS_PT = { min: 18, max: 14_400 } as const;

/**
 * Rules the schema cannot say (it already checks ranges, units and enums): width and height
 * stay within PAGE_SIDE_LIMITS_PT, so does each margin; page ranges count up
 * from 1 and run forward. `prefix` names the field
 * (`pdfParams`), so a 400 points at what to fix.
 */
export function pdfParamsProblems(params: PdfParams | undefined, prefix = 'pdfParams'): FieldProblem[] {
  if (!params) return [];
  const problems: FieldProblem[] = [];
  // A width without a height (or the other way round) keeps the format's other side, as Puppeteer does.
  for (const side of ['width', 'height'] as const) {
    const v = params[side];
    if (v === undefined) continue;
    const pt = lengthInPoints(v);
    if (pt <= 0) problems.push({ field: `${prefix}.${side}`, message: 'must be greater than 0' });
    else if (pt < PAGE_SIDE_LIMITS_PT.min - 1e-6)
      problems.push({ field: `${prefix}.${side}`, message: 'must be at least 0.25in (6.35mm)' });
    else if (pt > PAGE_SIDE_LIMITS_PT.max + 1e-6) problems.push({ field: `${prefix}.${side}`, message: 'must be at most 200in (5080mm)' });
  }
  for (const [side, v] of Object.entries(params.margin ?? {})) {
    if (v !== undefined && lengthInPoints(v) > PAGE_SIDE_LIMITS_PT.max + 1e-6) {
      problems.push({ field: `${prefix}.margin.${side}`, message: 'must be at most 200in (5080mm)' });
    }
  }
  if (params.pageRanges !== undefined) {
    for (const range of params.pageRanges.split(',')) {
      const [from, to] = range.split('-').map((s) => Number(s.trim()));
      if (from === 0 || to === 0) {
        problems.push({ field: `${prefix}.pageRanges`, message: 'pages count from 1' });
        break;
      }
      if (to !== undefined && from !== undefined && to < from) {
        problems.push({ field: `${prefix}.pageRanges`, message: `range ${range.trim()} runs backwards` });
        break;
      }
    }
  }
  return problems;
}

const POINTS_PER: Record<string, number> = { px: 0.75, in: 72, cm: 72 / 2.54, mm: 72 / 25.4 };

/** A CSS length (`12mm`, `8.5in`, `0`) in PDF points. */
export function lengthInPoints(length: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)(px|in|cm|mm)?$/.exec(length);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] ? (POINTS_PER[m[2]] ?? NaN) : 0);
}
