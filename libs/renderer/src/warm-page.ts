import type { AssetSource, Logger } from '@pressroom/core';
import { ASSET_ORIGIN } from '@pressroom/core';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright';
import type { BrowserHost } from './browser-host.ts';
import { withDeadline } from './deadline.ts';
import { FrameClock, frameLineOf } from './frame-clock.ts';
import { openQuietContext } from './quiet-page.ts';
import { guardNetwork, type AllowedFetchOptions } from './network-guard.ts';
import type { NetworkPolicy } from './network-policy.ts';
import type { PageLifecycle } from './page-pool.ts';
import { SETTLE_FONTS_AND_IMAGES } from './readiness.ts';
import { pageScriptFailure } from './render-failure.ts';
import { viewportFor, type PageSetup } from './page-setup.ts';

/** An A4 sheet at 96 dpi: PNG output is laid out at the width of the printed page. */
export const A4_VIEWPORT = { width: 794, height: 1123 } as const;

/** Housekeeping (reset, close) is ours, not the tenant's: it gets its own fixed limit. */
const HOUSEKEEPING_TIMEOUT_MS = 5_000;

/** A page in its own BrowserContext, so a crash, a hang or leftover state stays in that context. */
export interface WarmPage {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  crashed: boolean;
  /**
   * One of the page's frames held the browser's frame line too long while another page waited
   * (FrameLine): the page was closed to end it, and its job fails RENDER_TIMEOUT.
   */
  frameHeld: boolean;
  /** The assets of the job holding the page; the network guard answers asset requests from it. */
  assets: AssetSource | undefined;
  /** The media type the page emulates now (print when opened). */
  media: 'print' | 'screen';
  /** The page's DevTools session, for what Playwright has no API for (clearing an origin's storage). */
  cdp: CDPSession;
  /** The page's frames: none unless started (quiet-page.ts); started for a job that needs them. */
  frames: FrameClock;
  /** Origins the network guard answered with content since the last reset: their storage is cleared. */
  origins: Set<string>;
  /**
   * Whether the main frame went to another document while a job's own document was on the page
   * (see watchNavigation). Our own navigations (freshDocument) are not watched.
   */
  navigation: { watching: boolean; left: boolean; onLeave?: (() => void) | undefined };
  /** Chromium runs no script of the page's documents (a script-free job, see prepareForJob). */
  scriptsOff: boolean;
  /** A request left the browser (see guardNetwork's onRequest) since the current job began. */
  fetched: boolean;
  /**
   * The page kept the window of a script-free job that used no network (its document emptied)
   * instead of a fresh one: the next script-free job writes over it, any other job first gets a
   * fresh document.
   */
  holding: boolean;
}

/** PageLeft happens when the job's document is gone (a navigation, window.close()) while the job ran. */
export class PageLeft extends Error {
  constructor() {
    super('the page left the job document');
    this.name = 'PageLeft';
  }
}

export interface WarmPageDeps {
  host: BrowserHost;
  policy: NetworkPolicy;
  /** How the network guard fetches allowed hosts (resolver, trust roots, bounds); defaults otherwise. */
  fetching?: AllowedFetchOptions;
  /** The page-side template runtime (see eta-bundle.ts), evaluated in every fresh document. */
  runtimeScript: string;
  /** How long a page's frame may hold the others' (FrameLine); default FRAME_HOLD_LIMIT_MS. */
  frameHoldLimitMs?: number;
  logger: Logger;
}

export function warmPageLifecycle(deps: WarmPageDeps): PageLifecycle<WarmPage> {
  return {
    open: () => openWarmPage(deps),
    reset: (wp) => withDeadline(resetPage(wp), HOUSEKEEPING_TIMEOUT_MS),
    dispose: (wp) => disposeWarmPage(wp, deps),
    usable: (wp) => !wp.crashed && !wp.page.isClosed() && deps.host.isCurrent(wp.browser),
  };
}

async function openWarmPage(deps: WarmPageDeps): Promise<WarmPage> {
  const browser = await deps.host.browser();
  const { context, page } = await openQuietContext(browser, {
    viewport: A4_VIEWPORT,
    deviceScaleFactor: 1,
    serviceWorkers: 'block',
    acceptDownloads: false,
  });
  try {
    const current: { wp?: WarmPage } = {};
    await guardNetwork(context, {
      ...deps.fetching,
      policy: deps.policy,
      logger: deps.logger,
      assets: () => current.wp?.assets,
      onOrigin: (origin) => current.wp?.origins.add(origin),
      onRequest: () => {
        if (current.wp) current.wp.fetched = true;
      },
    });
    const cdp = await context.newCDPSession(page);
    const wp: WarmPage = {
      browser,
      context,
      page,
      crashed: false,
      frameHeld: false,
      assets: undefined,
      media: 'print',
      cdp,
      frames: new FrameClock(cdp, frameLineOf(browser, deps.frameHoldLimitMs), () => {
        if (current.wp) closeForHeldFrame(current.wp, deps.logger);
      }),
      origins: new Set(),
      navigation: { watching: false, left: false },
      scriptsOff: false,
      fetched: false,
      holding: false,
    };
    // Page.frameNavigated is sent for a new document only (not for a document.open nor for a
    // change of the hash), so it is exactly "the page left the job's document".
    cdp.on('Page.frameNavigated', (event) => {
      if (event.frame.parentId !== undefined || !wp.navigation.watching) return;
      wp.navigation.left = true;
      wp.navigation.onLeave?.();
    });
    page.on('close', () => {
      if (wp.navigation.watching) wp.navigation.onLeave?.();
    });
    await cdp.send('Page.enable');
    // The template runtime is installed by Chromium in every new document of the main frame (our
    // about:blank navigations): the reset costs one round trip, not two, and the runtime's source
    // crosses the pipe once per page instead of once per job.
    await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: documentStartScript(deps.runtimeScript) });
    await paintNothingOnScreen(cdp, A4_VIEWPORT);
    current.wp = wp;
    // A popup (window.open works in headless Chromium, blocker or not) would outlive the job that
    // opened it, since the reset renews only our page, and a later job could reach it by name:
    // close every other page as soon as it appears, and again at each reset.
    context.on('page', (other) => {
      if (other !== page) void other.close().catch(() => {});
    });
    page.on('crash', () => {
      wp.crashed = true;
      deps.logger.warn('page crashed');
    });
    await withDeadline(freshDocumentIn(wp, 'print'), HOUSEKEEPING_TIMEOUT_MS);
    return wp;
  } catch (err) {
    await context.close().catch(() => {});
    throw err;
  }
}

/**
 * Ends a frame stuck in the page's document (FrameLine) by closing the page's context, which the
 * browser process does even while the page's renderer is busy. The job on it fails, and the page
 * is replaced: closed pages are not usable.
 */
function closeForHeldFrame(wp: WarmPage, logger: Logger): void {
  wp.frameHeld = true;
  logger.warn('a page held its frame while other pages waited for theirs; closing it');
  void wp.context.close().catch(() => {});
}

async function resetPage(wp: WarmPage): Promise<void> {
  const strays = wp.context.pages().filter((other) => other !== wp.page);
  await Promise.all(strays.map((other) => other.close()));
  // A script-free job's window stays until the next job (prepareForJob decides then), its
  // document emptied: whatever it still runs without script (a CSS animation can keep a core
  // busy, an SVG animation, an animated image) stops now rather than at the next job.
  if (wp.holding) return emptyDocument(wp);
  await freshStart(wp);
}

async function emptyDocument(wp: WarmPage): Promise<void> {
  await wp.cdp.send('Runtime.evaluate', { expression: 'document.open(); document.close();' });
}

/**
 * Writes a script-free job's document over the page's and waits for its load event, and with
 * `settle` for its web fonts and images, in one DevTools round trip: what page.setContent and the
 * readiness wait did in three (setContent's utility world, tagged console message and lifecycle
 * wait, then a second evaluation): ~8 ms of the 14 its setContent took per render of the invoice,
 * and the host's CPU for those calls (issue 13). Only on a page running no script of its documents
 * (scriptsOff): the window's document, Promise and addEventListener are then the browser's own,
 * never a tenant's, and the document has no frame to wait for (isScriptFree refuses any markup
 * that makes one). A document running script keeps setContent, whose load waits for its frames
 * too (this document's load does not wait for a srcdoc frame). A document that never loads is
 * ended by the job's deadline (the page is then replaced, not reset).
 */
export async function writeScriptFreeDocument(wp: WarmPage, html: string, opts: { settle: boolean }): Promise<void> {
  if (!wp.scriptsOff) throw new Error('a document is written raw only on a page that runs no script');
  const { exceptionDetails } = await wp.cdp.send('Runtime.evaluate', {
    expression:
      `document.open(); document.write(${JSON.stringify(html)}); document.close();\n` +
      `(async () => {\n` +
      `  if (document.readyState !== 'complete') await new Promise((loaded) => addEventListener('load', () => loaded(), { once: true }));\n` +
      (opts.settle ? SETTLE_FONTS_AND_IMAGES : '') +
      `\n  return true;\n})()`,
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`writing the document failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
}

/**
 * Evaluates our own expression in the page's main world (the template runtime lives there) and
 * answers its value, in one DevTools round trip. An exception that escapes it was thrown by what
 * the page's scripts changed (the world held only the runtime before the job).
 */
export async function evaluateInPage<T>(wp: WarmPage, expression: string): Promise<T> {
  const { result, exceptionDetails } = await wp.cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  if (exceptionDetails) throw pageScriptFailure(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return result.value as T;
}

/** A fresh document with the template runtime, script on, storage cleared: what every scripted job starts from. */
async function freshStart(wp: WarmPage): Promise<void> {
  // On before the navigation: the runtime is installed by the new document's own start script.
  await setScripting(wp, true);
  await freshDocumentIn(wp, 'print');
  await clearStorage(wp);
}

/**
 * Readies the page for a job, script-free or not (isScriptFree). A script-free job runs with
 * Chromium running no script of its document at all, so nothing of it can act or remember
 * anything in the window: after it the page skips the fresh document (the about:blank
 * navigation, a new window: about a sixth of Chromium's CPU per job) and keeps its window, the
 * document emptied (resetPage), until the next job, which then
 * - if script-free too, writes its document over it (writeScriptFreeDocument's document.open): no script of
 *   either ever runs, and neither used the network (a fetch could leave a response in the
 *   document's caches for the next one's same URL, so a job that fetched anything gets the full
 *   reset instead of holding);
 * - otherwise first gets the fresh document it would have had, so a script never sees what the
 *   window kept of the documents before (their performance entries, their memory caches).
 */
export async function prepareForJob(wp: WarmPage, scriptFree: boolean): Promise<void> {
  if (wp.holding && (!scriptFree || wp.fetched)) await freshStart(wp);
  wp.holding = false;
  wp.fetched = false;
  await setScripting(wp, !scriptFree);
}

/** After a job's success: whether the page may hold its document (see prepareForJob). */
export function holdAfterJob(wp: WarmPage, scriptFree: boolean): void {
  wp.holding = scriptFree && !wp.fetched && wp.origins.size === 0;
}

async function setScripting(wp: WarmPage, on: boolean): Promise<void> {
  if (wp.scriptsOff === !on) return;
  await wp.cdp.send('Emulation.setScriptExecutionDisabled', { value: !on });
  wp.scriptsOff = !on;
}

/**
 * Forgets everything the last job's documents stored. Only documents of an origin the network
 * guard answered (the assets origin, an allowed host) can store anything: the page itself and
 * data:, blob: or srcdoc frames have opaque origins. Their documents are gone (freshDocument ran
 * first, so none can write again after the clearing); what they stored in the context is cleared
 * here: local and session storage, IndexedDB, Cache Storage, file systems and every other kind
 * DevTools knows, and every cookie. Service workers are blocked for the whole context (see
 * openWarmPage); the HTTP cache is never used (Playwright disables it while requests are routed,
 * and assets are served no-store). This costs a few milliseconds per job that reached an origin; a fresh BrowserContext per job would cost
 * several times the whole reset (bench/reset.bench.ts, bench/isolation.bench.ts).
 */
async function clearStorage(wp: WarmPage): Promise<void> {
  // No origin answered since the last reset (a self-contained document, most renders): no document
  // of a real origin existed, so nothing can have been stored, and the DevTools round trips
  // (a few ms of browser CPU per job) are skipped.
  if (wp.origins.size === 0) return;
  const origins = [...new Set([ASSET_ORIGIN, ...wp.origins])];
  wp.origins.clear();
  await Promise.all([
    ...origins.map((origin) => wp.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
    wp.context.clearCookies(),
  ]);
}

/**
 * What Chromium runs first in every new document of the page (Page.addScriptToEvaluateOnNewDocument,
 * installed once per page in openWarmPage): in the main frame only, window.name is cleared (it
 * survives navigation) and the template runtime is evaluated. A tenant's frames get neither.
 */
export function documentStartScript(runtimeScript: string): string {
  return `if (window.top === window) { window.name = ''; ${runtimeScript}\n}`;
}

/**
 * Navigates to a new about:blank document, in which Chromium installs the template runtime
 * (documentStartScript). Every job that may run script starts here (a script-free one may start
 * on the last script-free document instead, see prepareForJob): setContent() alone rewrites the document but
 * keeps its window, so globals, patched prototypes and timers of one tenant's page would
 * otherwise run in the next tenant's render. The opaque origin of about:blank has no storage to
 * carry over, and replacing about:blank keeps history.length at 1.
 *
 * This isolation has a price, kept low by Chromium's RenderDocument feature being off
 * (chromium-args.ts): ~20 ms of Chromium CPU per job instead of ~75 ms with it, where a new page
 * or a new BrowserContext per job costs ~150 ms (a new renderer process; bench/isolation.bench.ts).
 * It runs after the job's result has been handed back and the pool hands a job the page freed
 * longest ago, so with a spare page (concurrency below PRESSROOM_RENDER_PAGES) it is off the
 * request's path, and otherwise costs throughput under saturation.
 */
export async function freshDocument(page: Page): Promise<void> {
  await page.goto('about:blank', { waitUntil: 'load', timeout: HOUSEKEEPING_TIMEOUT_MS });
}

/**
 * From now until the job ends, notes any navigation of the page's main frame to a new document
 * (a meta refresh, `location = …`, `window.open(…, '_self')`, a form submission, a frame
 * navigating the top) and the page closing itself: the job's output would be some other
 * document, or none, so the job is refused. The promise returned rejects with PageLeft then.
 */
export function watchNavigation(wp: WarmPage): Promise<never> {
  wp.navigation.watching = true;
  wp.navigation.left = false;
  // Rejects as soon as the page leaves, so the job fails at once rather than when a wait for the
  // vanished document times out. Never left unhandled: the job may have ended before.
  const left = new Promise<never>((_, reject) => {
    wp.navigation.onLeave = () => reject(new PageLeft());
  });
  left.catch(() => {});
  return left;
}

/** Ends watching; true when the main frame left the job's document meanwhile (told once). */
export function stopWatchingNavigation(wp: WarmPage): boolean {
  const left = wp.navigation.left;
  wp.navigation.watching = false;
  wp.navigation.left = false;
  wp.navigation.onLeave = undefined;
  return left;
}

/**
 * freshDocument, then the media type emulated again: Chromium drops the emulated media at every
 * navigation while a second DevTools session (ours, wp.cdp) is attached to the page. Print by
 * default (print CSS for screenshots too, so a PNG shows what the PDF shows); done in the reset,
 * so a job asking for print media (most) sends nothing before its document (see fitPage).
 */
async function freshDocumentIn(wp: WarmPage, media: WarmPage['media']): Promise<void> {
  await freshDocument(wp.page);
  await wp.page.emulateMedia({ media });
  wp.media = media;
}

/** freshDocument in the middle of a job (for the header and footer): our navigation, not the tenant's. */
export async function freshDocumentDuringJob(wp: WarmPage): Promise<void> {
  const watching = wp.navigation.watching;
  wp.navigation.watching = false;
  try {
    await freshDocumentIn(wp, wp.media);
  } finally {
    wp.navigation.watching = watching;
  }
}

/** The laid-out size of the page's document in CSS px, from the browser (a page script cannot fake it). */
export async function contentSize(wp: WarmPage): Promise<{ width: number; height: number }> {
  const metrics = await wp.cdp.send('Page.getLayoutMetrics');
  return { width: metrics.cssContentSize.width, height: metrics.cssContentSize.height };
}

/**
 * Gives the page the job's viewport (the sheet's size, for PNG layout) and media type, each only
 * when it differs from what the page has: most jobs are A4 in print media, which the reset left
 * (freshDocumentIn), so they wait for no round trip here.
 */
export async function fitPage(wp: WarmPage, setup: PageSetup): Promise<void> {
  const viewport = viewportFor(setup);
  const current = wp.page.viewportSize();
  if (current?.width !== viewport.width || current.height !== viewport.height) {
    await wp.page.setViewportSize(viewport);
    // Playwright's own override of the new size brings the screen's painting back.
    await paintNothingOnScreen(wp.cdp, viewport);
  }
  if (wp.media !== setup.media) {
    await wp.page.emulateMedia({ media: setup.media });
    wp.media = setup.media;
  }
}

/**
 * Keeps Chromium from painting the page for a screen nobody looks at: the page keeps its viewport
 * (the sheet's size: innerWidth, innerHeight, screen, visualViewport, media queries, intersection
 * observers are what they were), but the visible area Chromium rasterizes after each layout is one
 * pixel (DevTools' device metrics `viewport`, which the page does not observe). A PDF is painted by
 * the print path and a PNG by Page.captureScreenshot's clip, neither from the screen's tiles, so
 * the output is byte for byte the same; the screen's raster of every job's first sheet was about a
 * quarter of Chromium's CPU per PDF render (bench/screen-and-window.bench.ts).
 *
 * The fields besides `viewport` are those Playwright sends for the context's viewport, so that
 * this override (the last one sent wins) changes nothing else the page sees.
 */
export async function paintNothingOnScreen(cdp: CDPSession, viewport: { width: number; height: number }): Promise<void> {
  await cdp.send('Emulation.setDeviceMetricsOverride', {
    width: viewport.width,
    height: viewport.height,
    screenWidth: viewport.width,
    screenHeight: viewport.height,
    deviceScaleFactor: 1,
    mobile: false,
    screenOrientation: { angle: 0, type: 'landscapePrimary' },
    viewport: { x: 0, y: 0, width: 1, height: 1, scale: 1 },
  });
}

async function disposeWarmPage(wp: WarmPage, deps: WarmPageDeps): Promise<void> {
  if (!deps.host.isCurrent(wp.browser)) return; // its browser is gone, and the context with it
  try {
    // Closing the context is handled by the browser process, so it works even when the page's
    // renderer is stuck in a tenant's infinite loop.
    await withDeadline(wp.context.close(), HOUSEKEEPING_TIMEOUT_MS);
  } catch (err) {
    deps.logger.error('a page context did not close', { err });
    await deps.host.restart('a page context did not close');
  }
}
