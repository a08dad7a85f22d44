import { RenderFailure } from '@pressroom/core';
import { pngPagesRefusal } from '@pressroom/domain';

/**
 * Refuses a PNG of `size` CSS px (one device pixel each: the scale factor is 1) when it has more
 * pixels than `maxPixels`. Checked on the sheet before a PNG job starts and on the laid-out
 * document before the capture, so a huge image is refused before Chromium spends seconds and
 * hundreds of megabytes making it, or fails making it in its own words.
 */
export function checkPngPixels(size: { width: number; height: number }, maxPixels: number): void {
  const width = Math.ceil(size.width);
  const height = Math.ceil(size.height);
  const pixels = width * height;
  if (pixels > maxPixels) {
    throw new RenderFailure(
      'OUTPUT_TOO_LARGE',
      `The PNG would be ${width} x ${height} pixels (${pixels.toLocaleString('en-US')} pixels), ` +
        `over the limit of ${maxPixels.toLocaleString('en-US')} pixels. Make the page smaller or render a PDF.`,
    );
  }
}

/**
 * Refuses a PNG that stacks more sheets than the tenant's plan allows (pngMaxPages), on the
 * laid-out document before the capture; the decision is pngPagesRefusal's.
 */
export function checkPngPages(contentHeightPx: number, sheetHeightPx: number, maxPages: number | undefined): void {
  const refusal = pngPagesRefusal({ contentHeightPx, sheetHeightPx, maxPages });
  if (refusal) throw new RenderFailure('OUTPUT_TOO_LARGE', refusal);
}
