import { RenderFailure, type RenderJob } from '@pressroom/core';
import type { Page } from 'playwright';

export type ReadySignal = NonNullable<RenderJob['ready']>;

/** How often a readiness condition is checked in the page. */
const POLL_MS = 50;

/**
 * Kept back from the job's remaining time when waiting for a signal, so that a signal that never
 * comes fails with a message naming it before the job's own deadline fires.
 */
const SIGNAL_RESERVE_MS = 250;

/** The load state setContent waits for: network idle (500 ms without requests) when asked. */
export function loadStateFor(ready: ReadySignal | undefined): 'load' | 'networkidle' {
  return ready?.networkIdle === true ? 'networkidle' : 'load';
}

/**
 * After the document is loaded and its fonts and images settled (writeScriptFreeDocument, or setContent
 * and settleFontsAndImages): the optional signal, a CSS selector that matches, then a JavaScript
 * expression that is truthy; then fonts and images again, for what the signalling script added.
 * A condition not met in time fails with RENDER_TIMEOUT naming it; a selector or expression that
 * cannot even be parsed fails with TEMPLATE_ERROR.
 */
export async function waitForSignal(page: Page, ready: ReadySignal | undefined, remainingMs: () => number): Promise<void> {
  if (!ready?.selector && !ready?.expression) return;
  if (ready.selector) await waitForSelector(page, ready.selector, remainingMs);
  if (ready.expression) await waitForExpression(page, ready.expression, remainingMs);
  await settleFontsAndImages(page);
}

/**
 * Markup through which a document can load an image or a web font: an `<img>` (document.images),
 * an `@font-face` rule, or a style sheet of its own (`<link>`, `@import`) that may hold one.
 */
const LOADS_IMAGES_OR_FONTS = /<\s*img\b|@font-face|@import|<\s*link\b/i;

/**
 * Whether a loaded document may still have web fonts or images to wait for (settleFontsAndImages).
 * Without script (the script-free path: Chromium runs none of the document's) the document is its
 * markup, so markup with no image and no font of its own has nothing to wait for, and the wait, a
 * round trip to the page of ~1.6 ms per render of the invoice (issue 13), is skipped. With
 * script, anything may be added after load: always waited for.
 */
export function mayHaveFontsOrImages(html: string, scriptRuns: boolean): boolean {
  return scriptRuns || LOADS_IMAGES_OR_FONTS.test(html);
}

/**
 * Loads lazy images (outside the viewport they would not load before printing), then waits for
 * document.fonts.ready and every image's decode(): as page source, for writeScriptFreeDocument's round trip.
 */
export const SETTLE_FONTS_AND_IMAGES = `
  for (const img of Array.from(document.images)) if (img.loading === 'lazy') img.loading = 'eager';
  await document.fonts.ready;
  await Promise.all(Array.from(document.images, (img) => img.decode().catch(() => undefined)));`;

/** SETTLE_FONTS_AND_IMAGES in the page's own world (for a document setContent loaded, and the bands). */
export async function settleFontsAndImages(page: Page): Promise<void> {
  await page.evaluate(`(async () => {${SETTLE_FONTS_AND_IMAGES}\n})()`);
}

async function waitForSelector(page: Page, selector: string, remainingMs: () => number): Promise<void> {
  const invalid = await page.evaluate((sel) => {
    try {
      document.querySelector(sel);
      return null;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }, selector);
  if (invalid !== null) throw new RenderFailure('TEMPLATE_ERROR', `ready.selector is not a valid CSS selector: ${invalid}`);
  const budget = Math.max(1, remainingMs() - SIGNAL_RESERVE_MS);
  await page
    .waitForFunction((sel) => document.querySelector(sel) !== null, selector, { polling: POLL_MS, timeout: budget })
    .catch((err: unknown) => {
      throw notReady(err, `ready.selector ${JSON.stringify(selector)} matched nothing within ${budget} ms`);
    });
}

async function waitForExpression(page: Page, expression: string, remainingMs: () => number): Promise<void> {
  // Evaluated in the page like any script of the template. A throw counts as "not yet" (the
  // variable the expression reads may not exist until the chart script ran); an expression that
  // does not parse makes the whole predicate fail to compile, which ends the wait at once.
  const predicate = `(() => { try { return !!(${expression}\n); } catch { return false; } })()`;
  const budget = Math.max(1, remainingMs() - SIGNAL_RESERVE_MS);
  await page.waitForFunction(predicate, undefined, { polling: POLL_MS, timeout: budget }).catch((err: unknown) => {
    // V8's own words from "SyntaxError" on; Playwright's prefix (page.waitForFunction: …) stays out.
    const syntax = err instanceof Error ? /SyntaxError.*/.exec(err.message.split('\n')[0] ?? '') : null;
    if (syntax) throw new RenderFailure('TEMPLATE_ERROR', `ready.expression does not parse: ${syntax[0]}`, { cause: err });
    throw notReady(err, `ready.expression ${JSON.stringify(truncate(expression))} was not truthy within ${budget} ms`);
  });
}

function notReady(err: unknown, what: string): unknown {
  if (err instanceof Error && err.name === 'TimeoutError') {
    return new RenderFailure('RENDER_TIMEOUT', `The page was not ready to print: ${what}.`, { cause: err });
  }
  return err;
}

function truncate(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
