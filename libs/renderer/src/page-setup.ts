import { RenderFailure, type RenderJob } from '@pressroom/core';
import { PAGE_SIDE_LIMITS_PT, PAPER_SIZES_PX, PX_PER_UNIT } from '@pressroom/domain';

export type PdfParams = NonNullable<RenderJob['pdfParams']>;

/** CSS px per unit: CSS fixes 96 px to the inch. */
const PX_PER = PX_PER_UNIT;

/** Paper formats, portrait (Ledger is landscape, as in Puppeteer), in CSS px. */
const PAPER = PAPER_SIZES_PX;

/** Room reserved for a header or footer when the template gives no margin on that side. */
export const DEFAULT_BAND = '15mm';

export interface Margins {
  top: string;
  right: string;
  bottom: string;
  left: string;
}

/** PdfParams with every default applied; lengths stay CSS lengths, the paper is in CSS px. */
export interface PageSetup {
  /** The sheet, orientation applied (what page.pdf gets unless CSS @page wins). */
  paper: { width: number; height: number };
  margin: Margins;
  scale: number;
  printBackground: boolean;
  /** '' prints every page. */
  pageRanges: string;
  preferCSSPageSize: boolean;
  media: 'print' | 'screen';
  hasCover: boolean;
  /** PDF bookmarks from the headings (Chromium's outline). */
  outline: boolean;
  /** A tagged (accessible) PDF. */
  tagged: boolean;
  /** No default white background (Puppeteer's omitBackground). */
  omitBackground: boolean;
  /** Chromium-style header and footer templates (pdfParams.displayHeaderFooter); undefined: none. */
  chromiumBands?: { header: string; footer: string };
}

/**
 * What Chromium prints when displayHeaderFooter is set without a template of its own: the date
 * and title on top, the URL and page "n/N" at the bottom.
 */
export const CHROMIUM_DEFAULT_HEADER =
  '<div style="font-size:8px;width:100%;display:flex;justify-content:space-between;padding:0 10px"><span class="date"></span><span class="title"></span><span></span></div>';
export const CHROMIUM_DEFAULT_FOOTER =
  '<div style="font-size:8px;width:100%;display:flex;justify-content:space-between;padding:0 10px"><span class="url"></span><span><span class="pageNumber"></span>/<span class="totalPages"></span></span></div>';

/**
 * The Chromium-style header and footer of a page setup: with displayHeaderFooter, each template
 * given (an empty one prints nothing on that side) or Chromium's default.
 */
export function chromiumBandsOf(params: PdfParams): { header: string; footer: string } | undefined {
  if (params.displayHeaderFooter !== true) return undefined;
  return { header: params.headerTemplate ?? CHROMIUM_DEFAULT_HEADER, footer: params.footerTemplate ?? CHROMIUM_DEFAULT_FOOTER };
}

/**
 * Applies the defaults (A4 portrait, no margins, backgrounds printed, CSS @page wins, print
 * media) and reserves DEFAULT_BAND at the top or bottom when a header or footer needs room and
 * the params give none. Width or height, when given, replace that side of the format.
 *
 * Values are assumed valid per the PdfParams schema (the API checks them at the door); what the
 * door cannot see (the template's and the request's values merged) is refused here with
 * PAGE_SETUP_INVALID rather than left to Chromium, whose own errors would name none of it: a
 * sheet outside PAGE_SIDE_LIMITS_PT, margins that leave no room for content. A scale outside
 * 0.1-2 is clamped.
 */
export function resolvePageSetup(
  params: PdfParams = {},
  bands: { header: boolean; footer: boolean } = { header: false, footer: false },
): PageSetup {
  const format = PAPER[params.format ?? 'A4'];
  // Chromium-style bands need the margins of the side they print on, like the template's own.
  const chromium = chromiumBandsOf(params);
  bands = { header: bands.header || Boolean(chromium?.header), footer: bands.footer || Boolean(chromium?.footer) };
  let width = params.width ? lengthToPx(params.width) : format.width;
  let height = params.height ? lengthToPx(params.height) : format.height;
  if (params.landscape === true && width < height) [width, height] = [height, width];
  const margin: Margins = {
    top: params.margin?.top ?? (bands.header ? DEFAULT_BAND : '0'),
    right: params.margin?.right ?? '0',
    bottom: params.margin?.bottom ?? (bands.footer ? DEFAULT_BAND : '0'),
    left: params.margin?.left ?? '0',
  };
  const [minPx, maxPx] = [PAGE_SIDE_LIMITS_PT.min * PX_PER_PT, PAGE_SIDE_LIMITS_PT.max * PX_PER_PT];
  if ([width, height].some((side) => !(side >= minPx - 1e-6 && side <= maxPx + 1e-6))) {
    throw new RenderFailure(
      'PAGE_SETUP_INVALID',
      `The page size ${mm(width)} x ${mm(height)} mm cannot be printed: each side must be between 0.25 and 200 inches (6.35 to 5080 mm).`,
    );
  }
  if (lengthToPx(margin.top) + lengthToPx(margin.bottom) >= height || lengthToPx(margin.left) + lengthToPx(margin.right) >= width) {
    throw new RenderFailure(
      'PAGE_SETUP_INVALID',
      `The margins (${margin.top} ${margin.right} ${margin.bottom} ${margin.left}) leave no room for content on a ` +
        `${mm(width)} x ${mm(height)} mm page.`,
    );
  }
  return {
    paper: { width, height },
    margin,
    scale: Math.min(2, Math.max(0.1, params.scale ?? 1)),
    printBackground: params.printBackground ?? true,
    pageRanges: params.pageRanges?.trim() ?? '',
    // As in Chromium and Puppeteer, a size asked for (format, width, height) beats a CSS @page
    // size unless preferCSSPageSize says otherwise; with none asked, A4 is only a fallback.
    preferCSSPageSize: params.preferCSSPageSize ?? !sizeAskedFor(params),
    media: params.emulatedMedia ?? 'print',
    hasCover: params.hasCover ?? false,
    outline: params.outline ?? false,
    tagged: params.tagged ?? false,
    omitBackground: params.omitBackground ?? false,
    ...(chromium ? { chromiumBands: chromium } : {}),
  };
}

const PX_PER_PT = 96 / 72;

/** Whether the page setup names a sheet size (format, width or height). */
export function sizeAskedFor(params: PdfParams): boolean {
  return params.format !== undefined || params.width !== undefined || params.height !== undefined;
}

function mm(px: number): number {
  return Math.round(px / PX_PER.mm);
}

/** A length of the PdfParams schema ("12mm", "0.5in", "40px", "0") in CSS px. */
export function lengthToPx(length: string): number {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(px|in|cm|mm)?\s*$/.exec(length);
  if (!m?.[1]) throw new RangeError(`not a length: ${JSON.stringify(length)}`);
  const unit = (m[2] ?? 'px') as keyof typeof PX_PER;
  return Number(m[1]) * PX_PER[unit];
}

/** Chromium's Page.printToPDF parameters (DevTools protocol): lengths in inches. */
export interface PrintToPdfParams {
  paperWidth: number;
  paperHeight: number;
  marginTop: number;
  marginRight: number;
  marginBottom: number;
  marginLeft: number;
  landscape: false;
  displayHeaderFooter: false;
  scale: number;
  printBackground: boolean;
  preferCSSPageSize: boolean;
  pageRanges: string;
  generateTaggedPDF: boolean;
  generateDocumentOutline: boolean;
}

/**
 * What Chromium is asked to print for the body: the parameters Playwright's page.pdf sends,
 * every one of them given (Chromium's own defaults differ: it would make a tagged PDF, a
 * costlier print, when not told otherwise). Lengths are CSS lengths converted to inches with
 * CSS's factors (lengthToPx), the ones the header and footer bands are laid out with.
 */
export function bodyPrintParams(setup: PageSetup): PrintToPdfParams {
  const inches = (length: string) => lengthToPx(length) / PX_PER.in;
  return {
    paperWidth: setup.paper.width / PX_PER.in,
    paperHeight: setup.paper.height / PX_PER.in,
    marginTop: inches(setup.margin.top),
    marginRight: inches(setup.margin.right),
    marginBottom: inches(setup.margin.bottom),
    marginLeft: inches(setup.margin.left),
    landscape: false,
    displayHeaderFooter: false,
    scale: setup.scale,
    printBackground: setup.printBackground,
    preferCSSPageSize: setup.preferCSSPageSize,
    pageRanges: setup.pageRanges,
    // Chromium builds the outline from the structure tree, so an outline needs a tagged PDF.
    generateTaggedPDF: setup.tagged || setup.outline,
    generateDocumentOutline: setup.outline,
  };
}

/** The viewport a job lays out in: the sheet's width and height, rounded to whole px. */
export function viewportFor(setup: PageSetup): { width: number; height: number } {
  return { width: Math.round(setup.paper.width), height: Math.round(setup.paper.height) };
}
