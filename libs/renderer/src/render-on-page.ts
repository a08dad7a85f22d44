import { RenderFailure, type RenderJob, type RenderOutput } from '@pressroom/core';
import type { Page } from 'playwright';
import { RUNTIME_GLOBAL, type PageRuntime, type TemplateResult } from './in-page/runtime-contract.ts';
import { hasPdfInfo, writePdfInfo } from './pdf-info.ts';

export interface PageRenderLimits {
  /** Milliseconds left of the job's time limit. */
  remainingMs(): number;
  maxOutputBytes: number;
}

/**
 * One job on a page that freshDocument() has prepared: evaluate the template in the page (never
 * here), load the HTML, wait for fonts and images, then print or capture.
 *
 * PNG: the page is 794 px wide (an A4 sheet at 96 dpi) unless the content sets a wider layout,
 * with print CSS applied, and the capture is the full page: a document that would print on several
 * sheets becomes one tall image with their content stacked. @page margins and page breaks do not
 * apply to a screenshot, so the content spans the full sheet width with no gaps between "pages".
 */
export async function renderOnPage(page: Page, job: RenderJob, limits: PageRenderLimits): Promise<RenderOutput> {
  const html = job.source.kind === 'template' ? await evaluateTemplate(page, job.source.content, job.source.data) : job.source.html;
  await page.setContent(html, { waitUntil: 'load', timeout: Math.max(1, limits.remainingMs()) });
  await page.evaluate(async () => {
    // Lazy images outside the viewport would not load before printing; load them now.
    for (const img of Array.from(document.images)) if (img.loading === 'lazy') img.loading = 'eager';
    await document.fonts.ready;
    await Promise.all(Array.from(document.images, (img) => img.decode().catch(() => undefined)));
  });
  if (job.output === 'png') {
    const png = await page.screenshot({ type: 'png', fullPage: true, animations: 'disabled', timeout: Math.max(1, limits.remainingMs()) });
    return { bytes: checkSize(png, limits.maxOutputBytes), contentType: 'image/png' };
  }
  let pdf: Uint8Array = checkSize(await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true }), limits.maxOutputBytes);
  if (hasPdfInfo(job.pdfMetadata)) pdf = checkSize(await writePdfInfo(pdf, job.pdfMetadata), limits.maxOutputBytes);
  return { bytes: pdf, contentType: 'application/pdf' };
}

async function evaluateTemplate(page: Page, content: string, data: Record<string, unknown>): Promise<string> {
  const result = await page.evaluate<TemplateResult, [string, string, Record<string, unknown>]>(
    ([name, tpl, it]) => (globalThis as unknown as Record<string, PageRuntime>)[name]!.renderTemplate(tpl, it),
    [RUNTIME_GLOBAL, content, data],
  );
  if (!result.ok) throw new RenderFailure('TEMPLATE_ERROR', result.message);
  return result.html;
}

function checkSize<T extends Uint8Array>(bytes: T, max: number): T {
  if (bytes.byteLength > max) {
    throw new RenderFailure('OUTPUT_TOO_LARGE', `The output is ${bytes.byteLength} bytes, over the limit of ${max} bytes.`);
  }
  return bytes;
}
