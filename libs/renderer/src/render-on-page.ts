import { RenderFailure, type RenderJob, type RenderOutput } from '@pressroom/core';
import { pdfLib } from './pdf-lib.ts';
import type { Page } from 'playwright';
import { stampHeaderFooter, type HeaderFooterSources } from './header-footer.ts';
import { RUNTIME_GLOBAL, type CompiledTemplateResult } from './in-page/runtime-contract.ts';
import { compiledTemplates, compiledTemplateKey } from './compiled-templates.ts';
import { viewportFor, type PageSetup } from './page-setup.ts';
import { applyPdfInfo, hasPdfInfo, savePdf } from './pdf-info.ts';
import { stopAnimations } from './png-capture.ts';
import { checkPngPages, checkPngPixels } from './png-limit.ts';
import { loadStateFor, mayHaveFontsOrImages, settleFontsAndImages, waitForSignal } from './readiness.ts';

export interface PageRenderContext {
  /** The job's page setup (resolvePageSetup); the page already has its viewport and media. */
  setup: PageSetup;
  /** Milliseconds left of the job's time limit. */
  remainingMs: () => number;
  maxOutputBytes: number;
  /** Largest PNG in pixels. */
  maxPngPixels: number;
  /** The tenant's plan's pngMaxPages; undefined: no page cap. */
  maxPngPages?: number;
  /** The laid-out size of the document in CSS px, as the browser measures it. */
  contentSize: () => Promise<{ width: number; height: number }>;
  /** Gives the page a new document with the template runtime (for the header and footer). */
  freshDocument: () => Promise<void>;
  /** A PNG of the whole document, whose laid-out size is given (capturePng, in the operator's encoding). */
  capturePng: (size: { width: number; height: number }) => Promise<Uint8Array>;
  /** The document printed with the page setup's body parameters (printPdf). */
  printPdf: (setup: PageSetup) => Promise<Uint8Array>;
  /** Whether the document's own script runs (false: the script-free path, Chromium runs none of it). */
  scriptRuns: boolean;
  /** Writes a script-free job's document and waits for its load, and with `settle` its fonts and images (writeScriptFreeDocument). */
  writeScriptFree: (html: string, opts: { settle: boolean }) => Promise<void>;
  /** Our expression's value in the page's main world, where the template runtime is (evaluateInPage). */
  evaluate: <T>(expression: string) => Promise<T>;
}

/**
 * One job on a page that freshDocument() has prepared: evaluate the template in the page (never
 * here), load the HTML, wait until it is ready to print (readiness.ts), then print or capture;
 * a header or footer is then printed and stamped on (header-footer.ts).
 *
 * PNG: the viewport is the sheet's width (794 px for A4 at 96 dpi) unless the content sets a
 * wider layout, with the job's media applied, and the capture is the full page: a document that
 * would print on several sheets becomes one tall image with their content stacked. Margins, page
 * breaks, headers and footers do not apply to a screenshot.
 */
export async function renderOnPage(page: Page, job: RenderJob, ctx: PageRenderContext): Promise<RenderOutput> {
  const source = job.source;
  if (source.kind === 'pdf-tool') throw new RenderFailure('RENDER_ERROR', 'A PDF tool request is not rendered by a browser.');
  // The worker reads a stored payload back before the job reaches the renderer.
  if (source.kind === 'stored') throw new RenderFailure('RENDER_ERROR', 'A stored payload reached the renderer unread.');
  const html =
    source.kind === 'template'
      ? await evaluateTemplate(
          ctx,
          source.content,
          source.data,
          job.tenantId !== undefined ? compiledTemplateKey(job.tenantId, source) : undefined,
        )
      : source.html;
  const waitUntil = loadStateFor(job.ready);
  const settle = mayHaveFontsOrImages(html, ctx.scriptRuns);
  if (!ctx.scriptRuns && waitUntil === 'load') {
    await ctx.writeScriptFree(html, { settle });
  } else {
    await page.setContent(html, { waitUntil, timeout: Math.max(1, ctx.remainingMs()) });
    if (settle) await settleFontsAndImages(page);
  }
  await waitForSignal(page, job.ready, () => ctx.remainingMs());
  // A debug render also answers the document as printed (the template's output, after its scripts).
  const printedHtml = job.debug ? await page.content() : undefined;
  const withHtml = (out: RenderOutput): RenderOutput => (printedHtml !== undefined ? { ...out, html: printedHtml } : out);
  if (job.output === 'png') {
    // At rest first (an animation may change the layout), then measured: the full-page capture is
    // the document's laid-out size, refused before Chromium makes it.
    await stopAnimations(page);
    const laidOut = await ctx.contentSize();
    checkPngPixels(laidOut, ctx.maxPngPixels);
    checkPngPages(laidOut.height, viewportFor(ctx.setup).height, ctx.maxPngPages);
    const png = ctx.setup.omitBackground
      ? await withTransparentBackground(page, () => ctx.capturePng(laidOut))
      : await ctx.capturePng(laidOut);
    return withHtml({ bytes: checkSize(png, ctx.maxOutputBytes), contentType: 'image/png' });
  }

  // Chromium-style templates (displayHeaderFooter) replace the template's Eta header and footer.
  const chromium = ctx.setup.chromiumBands;
  const bands: HeaderFooterSources = chromium ? {} : source.kind === 'template' ? { header: source.header, footer: source.footer } : {};
  const stamping = Boolean(bands.header || bands.footer || chromium?.header || chromium?.footer);
  const fontFaces = stamping ? await collectFontFaces(page) : [];
  const printed = chromium ? await page.evaluate(() => ({ title: document.title, url: location.href })) : undefined;
  let pdf: Uint8Array = checkSize(
    ctx.setup.omitBackground ? await withTransparentBackground(page, () => printBody(ctx)) : await printBody(ctx),
    ctx.maxOutputBytes,
  );
  if (!stamping && !hasPdfInfo(job.pdfMetadata)) return withHtml({ bytes: pdf, contentType: 'application/pdf' });

  const doc = await (await pdfLib()).PDFDocument.load(pdf, { updateMetadata: false });
  if (stamping) {
    await stampHeaderFooter(doc, {
      page,
      sources: bands,
      ...(chromium && printed ? { chromium: { ...chromium, title: printed.title, url: printed.url, date: chromiumDate(new Date()) } } : {}),
      data: source.kind === 'template' ? source.data : {},
      setup: ctx.setup,
      fontFaces,
      freshDocument: ctx.freshDocument,
      remainingMs: ctx.remainingMs,
    });
  }
  if (hasPdfInfo(job.pdfMetadata)) applyPdfInfo(doc, job.pdfMetadata);
  pdf = checkSize(await savePdf(doc), ctx.maxOutputBytes);
  return withHtml({ bytes: pdf, contentType: 'application/pdf' });
}

/** The date as Chromium's header templates print it (`class="date"`): e.g. 11/22/26. */
export function chromiumDate(d: Date): string {
  return d.toLocaleDateString('en-US', { year: '2-digit', month: 'numeric', day: 'numeric' });
}

/**
 * Puppeteer's omitBackground: no default white behind the document, so whatever the page does
 * not paint stays transparent (in a PNG; in a PDF, nothing is painted there).
 */
async function withTransparentBackground<T>(page: Page, print: () => Promise<T>): Promise<T> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
    return await print();
  } finally {
    // The page serves later jobs: back to Chromium's default white.
    await cdp.send('Emulation.setDefaultBackgroundColorOverride', {}).catch(() => {});
    await cdp.detach().catch(() => {});
  }
}

/**
 * Evaluates the template in the page. With a cache key (tenant, template, version, content), the
 * body Eta compiled for it in an earlier page is reused (compiledTemplates): the page skips the
 * parse; the compiling and running stay in the page, as before.
 */
async function evaluateTemplate(
  ctx: PageRenderContext,
  content: string,
  data: Record<string, unknown>,
  key: string | undefined,
): Promise<string> {
  const compiled = key !== undefined ? compiledTemplates.get(key) : undefined;
  // One round trip, the arguments as literals: the data crosses as JSON text and is parsed in the
  // page (JSON.parse, as the request's body was: a "__proto__" key stays a key), the rest as JSON
  // strings. The window is fresh (a template job never writes over another's), its globals ours.
  const literal = (value: unknown) => JSON.stringify(value);
  const result = await ctx.evaluate<CompiledTemplateResult>(
    `globalThis[${literal(RUNTIME_GLOBAL)}].renderCompiled(${literal(content)}, JSON.parse(${literal(JSON.stringify(data))}), ${
      compiled !== undefined ? literal(compiled) : 'undefined'
    })`,
  );
  if (!result.ok) throw new RenderFailure('TEMPLATE_ERROR', result.message);
  if (key !== undefined && result.compiled !== undefined) compiledTemplates.set(key, result.compiled);
  return result.html;
}

/**
 * Prints the loaded document. Chromium refuses page ranges that select nothing (the door already
 * refuses ranges that run backwards or start at 0); that is the request's fault, not the page's,
 * so it is a TEMPLATE_ERROR naming the range, in our words.
 */
async function printBody(ctx: PageRenderContext): Promise<Uint8Array> {
  const setup = ctx.setup;
  try {
    return await ctx.printPdf(setup);
  } catch (err) {
    const first = err instanceof Error ? (err.message.split('\n')[0] ?? '') : '';
    if (setup.pageRanges && /Page range/i.test(first)) {
      throw new RenderFailure('TEMPLATE_ERROR', `pageRanges "${setup.pageRanges}" selects pages the document does not have.`, {
        cause: err,
      });
    }
    throw err;
  }
}

/** The @font-face rules of the document's readable style sheets, for the header and footer. */
function collectFontFaces(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const rules: string[] = [];
    for (const sheet of Array.from(document.styleSheets)) {
      let list: CSSRuleList;
      try {
        list = sheet.cssRules;
      } catch {
        continue; // a cross-origin sheet from an allowed host: its rules are not readable
      }
      for (const rule of Array.from(list)) if (rule instanceof CSSFontFaceRule) rules.push(rule.cssText);
    }
    return rules;
  });
}

function checkSize<T extends Uint8Array>(bytes: T, max: number): T {
  if (bytes.byteLength > max) {
    throw new RenderFailure('OUTPUT_TOO_LARGE', `The output is ${bytes.byteLength} bytes, over the limit of ${max} bytes.`);
  }
  return bytes;
}
