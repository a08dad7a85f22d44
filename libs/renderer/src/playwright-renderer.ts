import {
  RenderFailure,
  silentLogger,
  type FailureCodeValue,
  type Logger,
  type Renderer,
  type RenderJob,
  type RenderOutput,
} from '@pressroom/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { failureFault } from '@pressroom/domain';
import { BrowserHost } from './browser-host.ts';
import { chromiumArgs } from './chromium-args.ts';
import { resolveChromiumPath } from './chromium-path.ts';
import { withDeadline } from './deadline.ts';
import { pageRuntimeScript } from './eta-bundle.ts';
import type { AllowedFetchOptions } from './network-guard.ts';
import { NetworkPolicy } from './network-policy.ts';
import { PagePool, type PagePoolStats } from './page-pool.ts';
import { resolvePageSetup, viewportFor } from './page-setup.ts';
import { capturePng, type PngEncoding } from './png-capture.ts';
import { checkPngPixels } from './png-limit.ts';
import { classifyRenderFailure, NAVIGATION_REFUSED_MESSAGE } from './render-failure.ts';
import { printPdf } from './print-pdf.ts';
import { FRAME_HOLD_LIMIT_MS } from './frame-clock.ts';
import { renderOnPage } from './render-on-page.ts';
import { isScriptFree } from './script-free.ts';
import {
  contentSize,
  evaluateInPage,
  fitPage,
  freshDocumentDuringJob,
  holdAfterJob,
  PageLeft,
  prepareForJob,
  stopWatchingNavigation,
  warmPageLifecycle,
  watchNavigation,
  writeScriptFreeDocument,
  type WarmPage,
} from './warm-page.ts';

/** How long a closed page waits for its browser's disconnect to show before it is judged. */
const BROWSER_GONE_SETTLE_MS = 250;

export interface PlaywrightRendererOptions {
  /** Chromium binary; resolveChromiumPath() picks Debian's headless shell, then chromium, when unset. */
  executablePath?: string;
  /** Renders at once (each on a warm page of its own). */
  pages: number;
  /**
   * Warm pages kept beyond `pages` (default 0): with one, a job never waits for the reset of the
   * page the last one freed, even with `pages` renders at once. Off by default: on the shared
   * 2-core machine it showed no gain in renders/s at concurrency 2 (bench/chromium-steps.bench.ts,
   * issue 13), and each costs a renderer process's memory. With none, every job runs on a page
   * the previous job used, which the isolation tests rely on to prove the reset.
   */
  sparePages?: number;
  /** Renders a page serves before it is replaced by a fresh one (e.g. 200). */
  recycleAfter: number;
  /** Hosts a page may fetch from over https (exact names). Default: none. */
  allowedHosts?: string[];
  /** Allowed hosts may resolve to private addresses (never loopback or metadata). Default: false. */
  allowPrivateHosts?: boolean;
  /** How allowed hosts are fetched (resolver, trust roots, bounds); defaults suit production. */
  fetching?: AllowedFetchOptions;
  /** Largest file a render may produce; bigger ones fail with OUTPUT_TOO_LARGE. */
  maxOutputBytes: number;
  /** Largest PNG in pixels; a bigger one fails with OUTPUT_TOO_LARGE before it is captured. Default 25 million. */
  maxPngPixels?: number;
  /** How PNG output is compressed (png-capture.ts). Default `fast`. */
  pngEncoding?: PngEncoding;
  /** Chromium's sandbox; only where this process runs unprivileged (see supervised-renderer.ts). Default off. */
  sandbox?: boolean;
  /** How long one page's frame may hold the other pages' frames before its page is closed (FrameLine). Default 15 s. */
  frameHoldLimitMs?: number;
  logger?: Logger;
}

export interface RendererStats extends PagePoolStats {
  executablePath: string;
  browserConnected: boolean;
  browserLaunches: number;
  succeeded: number;
  failed: Record<FailureCodeValue, number>;
}

export type PlaywrightRenderer = Renderer & { stats(): RendererStats };

/**
 * The Renderer port on Playwright and one Chromium: a pool of warm pages, each in its own
 * BrowserContext; templates evaluated by Eta inside the page; every request under the network
 * policy; a time limit and a size limit per render. Resolves once the browser and every page are
 * up, so a broken installation fails at start rather than on the first job.
 */
export async function createPlaywrightRenderer(options: PlaywrightRendererOptions): Promise<PlaywrightRenderer> {
  const logger = (options.logger ?? silentLogger).child({ component: 'renderer' });
  const executablePath = resolveChromiumPath(options.executablePath);
  const sandbox = options.sandbox ?? false;
  const frameHoldLimitMs = options.frameHoldLimitMs ?? FRAME_HOLD_LIMIT_MS;
  const host = new BrowserHost({ executablePath, args: chromiumArgs({ sandbox }), sandbox, logger });
  const runtimeScript = await pageRuntimeScript();
  const pool = new PagePool({
    size: options.pages,
    spares: options.sparePages ?? 0,
    recycleAfter: options.recycleAfter,
    logger,
    lifecycle: warmPageLifecycle({
      host,
      policy: new NetworkPolicy(options.allowedHosts ?? [], { allowPrivate: options.allowPrivateHosts ?? false }),
      ...(options.fetching ? { fetching: options.fetching } : {}),
      runtimeScript,
      frameHoldLimitMs,
      logger,
    }),
  });
  try {
    await pool.warm();
  } catch (err) {
    await host.close();
    throw err;
  }

  let succeeded = 0;
  const failed: Record<FailureCodeValue, number> = {
    TEMPLATE_ERROR: 0,
    RENDER_TIMEOUT: 0,
    OUTPUT_TOO_LARGE: 0,
    STORAGE_ERROR: 0,
    RENDER_ERROR: 0,
    NAVIGATION_REFUSED: 0,
    PAGE_SETUP_INVALID: 0,
    RENDER_CRASHED: 0,
    PAYLOAD_REMOVED: 0,
    INPUT_INVALID: 0,
    INPUT_UNAVAILABLE: 0,
  };
  const maxPngPixels = options.maxPngPixels ?? 25_000_000;
  const pngEncoding = options.pngEncoding ?? 'fast';
  let closing: Promise<void> | undefined;

  async function render(job: RenderJob): Promise<RenderOutput> {
    const lease = await pool.acquire(job.lane ?? 'async').catch((err: unknown) => {
      throw logged(classifyRenderFailure(err, { timeoutMs: job.timeoutMs, navigated: false, pageGone: false }));
    });
    // The limit starts when the job has a page: waiting for one is the caller's back-pressure.
    const deadline = Date.now() + job.timeoutMs;
    let spoiled = true;
    const wp = lease.page;
    try {
      const output = await withDeadline(renderJob(wp, job, deadline), Math.max(1, job.timeoutMs));
      spoiled = false;
      succeeded++;
      return output;
    } catch (err) {
      const navigated = stopWatchingNavigation(wp);
      // A killed Chromium closes its pages before Playwright reports the browser gone: give the
      // disconnect a moment, so a dead browser is never taken for a page that closed itself.
      if (wp.page.isClosed() && !wp.crashed) await sleep(BROWSER_GONE_SETTLE_MS);
      const browserAlive = wp.browser.isConnected() && host.isCurrent(wp.browser);
      const failure = logged(
        crashedUnder(
          wp,
          classifyRenderFailure(err, {
            timeoutMs: job.timeoutMs,
            navigated,
            pageGone: wp.crashed || wp.page.isClosed(),
            // We close a job's page only after the job, or for a frame it held; a crash or a dead
            // browser is not the page's doing.
            closedItself: wp.page.isClosed() && !wp.crashed && !wp.frameHeld && browserAlive,
            ...(wp.frameHeld ? { frameHeldMs: frameHoldLimitMs } : {}),
          }),
        ),
      );
      failed[failure.code]++;
      // A failure of the tenant's making (a template error, a navigation, a page setup or an
      // output over a limit) leaves a healthy page behind, which the reset cleans; anything
      // else may not. A job abandoned when its page left may still have calls under way on
      // the page: it is replaced, not reset.
      spoiled = failureFault(failure.code) !== 'tenant' || err instanceof PageLeft;
      throw failure;
    } finally {
      // The document left on the page (until its reset) draws nothing more.
      wp.frames.stop();
      stopWatchingNavigation(wp);
      // Requests still in flight from this job find no assets from here on.
      wp.assets = undefined;
      void lease.release({ discard: spoiled });
    }
  }

  /** The caller sees our words only; the original error (Playwright's, Chromium's) goes to the log. */
  function logged(failure: RenderFailure): RenderFailure {
    const cause = failure.cause;
    if (failureFault(failure.code) === 'service') logger.warn('render failed', { code: failure.code, err: cause ?? failure });
    else logger.debug('render refused', { code: failure.code, message: failure.message, ...(cause ? { err: cause } : {}) });
    return failure;
  }

  /**
   * A render that failed because Chromium died under it (the browser process killed or crashed,
   * or the page's own renderer process) says nothing about the document: it is RENDER_CRASHED,
   * which the render worker tries again (bounded), not a final RENDER_ERROR or RENDER_TIMEOUT.
   * The failure's own kind is kept when the document is at fault (template, output size).
   */
  function crashedUnder(wp: WarmPage, failure: RenderFailure): RenderFailure {
    if (failure.code !== 'RENDER_ERROR' && failure.code !== 'RENDER_TIMEOUT') return failure;
    const browserGone = !host.isCurrent(wp.browser) || !wp.browser.isConnected();
    if (!wp.crashed && !browserGone) return failure;
    logger.warn('chromium died during a render', { browserGone, pageCrashed: wp.crashed, failure: failure.message });
    return new RenderFailure('RENDER_CRASHED', 'Chromium stopped during this render.', { cause: failure });
  }

  async function renderJob(wp: WarmPage, job: RenderJob, deadline: number): Promise<RenderOutput> {
    const src = job.source;
    const setup = resolvePageSetup(job.pdfParams, {
      header: src.kind === 'template' && Boolean(src.header),
      footer: src.kind === 'template' && Boolean(src.footer),
    });
    // The job's (its tenant's plan) cap, never above the renderer's own.
    const pngLimit = Math.min(maxPngPixels, job.maxPngPixels ?? maxPngPixels);
    // A PNG is at least its sheet: refuse one over the pixel limit before laying anything out.
    if (job.output === 'png') checkPngPixels(viewportFor(setup), pngLimit);
    const scriptFree = isScriptFree(job, setup);
    await prepareForJob(wp, scriptFree);
    // A script-free PDF needs no frame (FrameClock); a document's scripts and a screenshot do.
    if (!scriptFree || job.output === 'png') wp.frames.start();
    wp.assets = job.assets;
    await fitPage(wp, setup);
    const left = watchNavigation(wp);
    const rendering = renderOnPage(wp.page, job, {
      setup,
      remainingMs: () => deadline - Date.now(),
      maxOutputBytes: options.maxOutputBytes,
      maxPngPixels: pngLimit,
      ...(job.maxPngPages !== undefined ? { maxPngPages: job.maxPngPages } : {}),
      contentSize: () => contentSize(wp),
      freshDocument: () => freshDocumentDuringJob(wp),
      capturePng: (size) => capturePng(wp.cdp, size, viewportFor(setup), pngEncoding),
      printPdf: (s) => printPdf(wp.cdp, s),
      scriptRuns: !scriptFree,
      writeScriptFree: (html, opts) => writeScriptFreeDocument(wp, html, opts),
      evaluate: (expression) => evaluateInPage(wp, expression),
    });
    const output = await Promise.race([rendering, left]);
    if (stopWatchingNavigation(wp)) throw new RenderFailure('NAVIGATION_REFUSED', NAVIGATION_REFUSED_MESSAGE);
    holdAfterJob(wp, scriptFree);
    return output;
  }

  return {
    render,
    async ping() {
      const browser = await host.browser();
      if (!browser.isConnected()) throw new Error('chromium is not connected');
    },
    close() {
      closing ??= pool.close().then(() => host.close());
      return closing;
    },
    stats: () => ({
      ...pool.stats(),
      executablePath,
      browserConnected: host.connected,
      browserLaunches: host.launches,
      succeeded,
      failed: { ...failed },
    }),
  };
}
