import {
  RenderFailure,
  silentLogger,
  type FailureCodeValue,
  type Logger,
  type Renderer,
  type RenderJob,
  type RenderOutput,
} from '@pressroom/core';
import { BrowserHost } from './browser-host.ts';
import { chromiumArgs } from './chromium-args.ts';
import { resolveChromiumPath } from './chromium-path.ts';
import { DeadlineExceeded, withDeadline } from './deadline.ts';
import { pageRuntimeScript } from './eta-bundle.ts';
import { NetworkPolicy } from './network-policy.ts';
import { PagePool, PoolClosedError, type PagePoolStats } from './page-pool.ts';
import { resolvePageSetup } from './page-setup.ts';
import { renderOnPage } from './render-on-page.ts';
import { fitPage, freshDocument, warmPageLifecycle, type WarmPage } from './warm-page.ts';

export interface PlaywrightRendererOptions {
  /** Chromium binary; resolveChromiumPath() picks Debian's headless shell, then chromium, when unset. */
  executablePath?: string;
  /** Warm pages, hence renders at once. */
  pages: number;
  /** Renders a page serves before it is replaced by a fresh one (e.g. 200). */
  recycleAfter: number;
  /** Hosts a page may fetch from over https (exact names). Default: none. */
  allowedHosts?: string[];
  /** Largest file a render may produce; bigger ones fail with OUTPUT_TOO_LARGE. */
  maxOutputBytes: number;
  /** Chromium's sandbox; only where this process runs unprivileged (see supervised-renderer.ts). Default off. */
  sandbox?: boolean;
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
  const host = new BrowserHost({ executablePath, args: chromiumArgs({ sandbox }), sandbox, logger });
  const runtimeScript = await pageRuntimeScript();
  const pool = new PagePool({
    size: options.pages,
    recycleAfter: options.recycleAfter,
    logger,
    lifecycle: warmPageLifecycle({
      host,
      policy: new NetworkPolicy(options.allowedHosts ?? []),
      runtimeScript,
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
    RENDER_CRASHED: 0,
  };
  let closing: Promise<void> | undefined;

  async function render(job: RenderJob): Promise<RenderOutput> {
    const lease = await pool.acquire(job.lane ?? 'async').catch((err: unknown) => {
      throw asFailure(err);
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
      const failure = crashedUnder(wp, asFailure(err, job.timeoutMs));
      failed[failure.code]++;
      // A template or size failure leaves a healthy page behind; anything else may not.
      spoiled = failure.code !== 'TEMPLATE_ERROR' && failure.code !== 'OUTPUT_TOO_LARGE';
      if (failure.code === 'RENDER_ERROR') logger.warn('render failed', { err });
      throw failure;
    } finally {
      // Requests still in flight from this job find no assets from here on.
      wp.assets = undefined;
      void lease.release({ discard: spoiled });
    }
  }

  /**
   * A render that failed because Chromium died under it (the browser process killed or crashed,
   * or the page's own renderer process) says nothing about the document: it is RENDER_CRASHED,
   * which the render worker tries again (bounded), not a final RENDER_ERROR or RENDER_TIMEOUT.
   * The failure's own kind is kept when the document is at fault (template, output size).
   */
  function crashedUnder(wp: WarmPage, failure: RenderFailure): RenderFailure {
    if (failure.code !== 'RENDER_ERROR' && failure.code !== 'RENDER_TIMEOUT') return failure;
    const browserGone = !host.isCurrent(wp.browser);
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
    wp.assets = job.assets;
    await fitPage(wp, setup);
    return renderOnPage(wp.page, job, {
      setup,
      remainingMs: () => deadline - Date.now(),
      maxOutputBytes: options.maxOutputBytes,
      freshDocument: () => freshDocument(wp.page, runtimeScript),
    });
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

function asFailure(err: unknown, timeoutMs?: number): RenderFailure {
  if (err instanceof RenderFailure) return err;
  if (err instanceof DeadlineExceeded || (err instanceof Error && err.name === 'TimeoutError')) {
    return new RenderFailure('RENDER_TIMEOUT', `The render did not finish within ${timeoutMs ?? '?'} ms.`, { cause: err });
  }
  if (err instanceof PoolClosedError) return new RenderFailure('RENDER_ERROR', 'The renderer is closed.', { cause: err });
  const detail = err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err);
  return new RenderFailure('RENDER_ERROR', `Chromium failed to render: ${detail}`, { cause: err });
}
