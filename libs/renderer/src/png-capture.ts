import type { CDPSession, Page } from 'playwright';

/**
 * How Chromium compresses a PNG. `fast` is its speed-optimized encoding (CDP `optimizeForSpeed`):
 * on the invoice fixture, setContent + capture cost 185 against 246 ms of Chromium CPU and the
 * file is 540 against 459 KB, the same pixels (`npx tsx bench/png-encoding.bench.ts`). `small`
 * is its default compression, as Playwright's `page.screenshot` does it (the same bytes).
 */
export type PngEncoding = 'fast' | 'small';

/**
 * Finishes every finite CSS animation and transition of the document, in every frame, and cancels
 * infinite ones, so a PNG shows the document at rest rather than whatever frame the capture hit
 * (Playwright's `animations: 'disabled'`, which this replaces). Animations started by the ends of
 * others are handled too. No clean-up: the document is discarded after the job.
 */
export async function stopAnimations(page: Page): Promise<void> {
  await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate(() => {
          // The document and every shadow root in it: getAnimations() of each sees only its own tree.
          const roots: (Document | ShadowRoot)[] = [document];
          for (let i = 0; i < roots.length; i++) {
            const walker = document.createTreeWalker(roots[i]!, NodeFilter.SHOW_ELEMENT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              const shadow = (node as Element).shadowRoot;
              if (shadow) roots.push(shadow);
            }
          }
          const settle = (root: Document | ShadowRoot): void => {
            for (const animation of root.getAnimations()) {
              if (!animation.effect || animation.playbackRate === 0) continue;
              try {
                if (Number.isFinite(animation.effect.getComputedTiming().endTime)) animation.finish();
                else animation.cancel();
              } catch {
                // an animation the document itself tore down meanwhile
              }
            }
          };
          for (const root of roots) {
            settle(root);
            root.addEventListener('transitionrun', () => settle(root));
            root.addEventListener('animationstart', () => settle(root));
          }
        })
        // A frame that went away meanwhile has nothing to show.
        .catch(() => undefined),
    ),
  );
}

/**
 * A PNG of the whole laid-out document: `size` is its size in CSS px (Page.getLayoutMetrics,
 * which the pixel limit was checked against), never less than the viewport. Captured by Chromium
 * beyond the viewport in one DevTools call, as Playwright's full-page screenshot does (the same
 * bytes with `small`), but with the encoding chosen.
 */
export async function capturePng(
  cdp: CDPSession,
  size: { width: number; height: number },
  viewport: { width: number; height: number },
  encoding: PngEncoding,
): Promise<Buffer> {
  const width = Math.max(Math.ceil(size.width), viewport.width);
  const height = Math.max(Math.ceil(size.height), viewport.height);
  const { data } = await cdp.send('Page.captureScreenshot', {
    format: 'png',
    clip: { x: 0, y: 0, width, height, scale: 1 },
    captureBeyondViewport: width > viewport.width || height > viewport.height,
    optimizeForSpeed: encoding === 'fast',
  });
  return Buffer.from(data, 'base64');
}
