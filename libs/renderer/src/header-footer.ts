import { RenderFailure } from '@pressroom/core';
import type { PDFDocument } from 'pdf-lib';
import { pdfLib } from './pdf-lib.ts';
import type { Page } from 'playwright';
import { bandSheetsHtml } from './band-sheets.ts';
import { RUNTIME_GLOBAL, type PageRuntime } from './in-page/runtime-contract.ts';
import type { PageSetup } from './page-setup.ts';
import { settleFontsAndImages } from './readiness.ts';

/** The Eta sources of the running header and footer. */
export interface HeaderFooterSources {
  header?: string | undefined;
  footer?: string | undefined;
}

/** Chromium-style header and footer templates (displayHeaderFooter), with what their classes show. */
export interface ChromiumBands {
  /** HTML; '' prints nothing on that side. */
  header: string;
  footer: string;
  title: string;
  url: string;
  date: string;
}

export interface StampInput {
  page: Page;
  sources: HeaderFooterSources;
  /** Instead of the Eta sources: Chromium-style templates, whose pageNumber, totalPages, title, date and url elements are filled in. */
  chromium?: ChromiumBands;
  /** The body's data; each page's header and footer see it plus `$page` and `$pages`. */
  data: Record<string, unknown>;
  setup: PageSetup;
  /** @font-face rules of the body document. */
  fontFaces: string[];
  /** Gives the page a new document with the template runtime (the body's scripts stay behind). */
  freshDocument: () => Promise<void>;
  remainingMs: () => number;
}

/**
 * Headers and footers that can use everything the body can. Chromium's own headerTemplate is
 * rendered without the document's resources, so we print the bands ourselves:
 *
 * 1. the body is already printed, with margins that leave room for the bands;
 * 2. the header and footer templates are evaluated in the page (never here) once per stamped
 *    page, with `it.$page` and `it.$pages`;
 * 3. a second document in the same page, hence the same context, route and asset source, holds one
 *    transparent sheet per page with the bands in the margins, and is printed at the body's size;
 * 4. each sheet is stamped onto its body page as a form XObject (pdf-lib), so its text stays text
 *    and its fonts stay embedded.
 *
 * With `hasCover` the first page gets no header or footer (numbering still counts it).
 */
export async function stampHeaderFooter(body: PDFDocument, input: StampInput): Promise<void> {
  const total = body.getPageCount();
  const numbers = Array.from({ length: total }, (_, i) => i + 1).filter((n) => !(input.setup.hasCover && n === 1));
  if (numbers.length === 0) return;
  const first = body.getPage(numbers[0]! - 1).getSize();

  await input.freshDocument();
  const chromium = input.chromium;
  const { header, footer } = chromium
    ? {
        header: chromium.header ? numbers.map(() => chromium.header) : undefined,
        footer: chromium.footer ? numbers.map(() => chromium.footer) : undefined,
      }
    : await evaluateBands(input.page, input.sources, { numbers, total, data: input.data });
  const html = bandSheetsHtml({
    size: { width: (first.width * 96) / 72, height: (first.height * 96) / 72 },
    margin: input.setup.margin,
    sheets: numbers.map((_, i) => ({ header: header?.[i], footer: footer?.[i] })),
    fontFaces: input.fontFaces,
  });
  await input.page.setContent(html, { waitUntil: 'load', timeout: Math.max(1, input.remainingMs()) });
  if (chromium) await fillChromiumClasses(input.page, { numbers, total, title: chromium.title, url: chromium.url, date: chromium.date });
  await settleFontsAndImages(input.page);
  const overlay = await input.page.pdf({
    width: `${first.width / 72}in`,
    height: `${first.height / 72}in`,
    margin: { top: '0', right: '0', bottom: '0', left: '0' },
    printBackground: input.setup.printBackground,
    preferCSSPageSize: false,
  });

  const sheets = await (await pdfLib()).PDFDocument.load(overlay, { updateMetadata: false });
  if (sheets.getPageCount() !== numbers.length) {
    throw new RenderFailure(
      'RENDER_ERROR',
      `The header and footer printed on ${sheets.getPageCount()} sheets for ${numbers.length} pages.`,
    );
  }
  const embedded = await body.embedPages(sheets.getPages());
  numbers.forEach((n, i) => {
    const target = body.getPage(n - 1);
    const { width, height } = target.getSize();
    target.drawPage(embedded[i]!, { x: 0, y: 0, width, height });
  });
}

/** Chromium's header-template classes, filled in on each sheet: its page number, the count, the title, the date, the URL. */
async function fillChromiumClasses(
  page: Page,
  values: { numbers: number[]; total: number; title: string; url: string; date: string },
): Promise<void> {
  await page.evaluate(({ numbers, total, title, url, date }) => {
    document.querySelectorAll('.pressroom-sheet').forEach((sheet, i) => {
      const fill: Record<string, string> = { pageNumber: String(numbers[i] ?? ''), totalPages: String(total), title, url, date };
      for (const [cls, text] of Object.entries(fill)) sheet.querySelectorAll(`.${cls}`).forEach((el) => (el.textContent = text));
    });
  }, values);
}

interface BandPages {
  numbers: number[];
  total: number;
  data: Record<string, unknown>;
}

type BandResults = { ok: true; header?: string[]; footer?: string[] } | { ok: false; message: string };

/**
 * Renders the header and footer templates once per page in the page's runtime, in one round trip
 * (the data crosses to the page once, not once per page).
 */
async function evaluateBands(
  page: Page,
  sources: HeaderFooterSources,
  pages: BandPages,
): Promise<{ header?: string[]; footer?: string[] }> {
  const result = await page.evaluate<BandResults, [string, HeaderFooterSources, BandPages]>(
    ([name, { header, footer }, { numbers, total, data }]) => {
      const runtime = (globalThis as unknown as Record<string, PageRuntime>)[name]!;
      const perPage = numbers.map((n) => ({ ...data, $page: n, $pages: total }));
      const out: { ok: true; header?: string[]; footer?: string[] } = { ok: true };
      for (const [band, source] of [
        ['header', header],
        ['footer', footer],
      ] as const) {
        if (!source) continue;
        const r = runtime.renderEach(source, perPage);
        if (!r.ok) return { ok: false, message: `${band}: ${r.message}` };
        out[band] = r.html;
      }
      return out;
    },
    [RUNTIME_GLOBAL, { header: sources.header, footer: sources.footer }, pages],
  );
  if (!result.ok) throw new RenderFailure('TEMPLATE_ERROR', result.message);
  return result;
}
