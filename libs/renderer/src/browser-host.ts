import type { Logger } from '@pressroom/core';
import type { Browser } from 'playwright';
import { withDeadline } from './deadline.ts';
import { FRAME_CONTROL_ARGS } from './quiet-page.ts';

export interface BrowserHostOptions {
  executablePath: string;
  args: string[];
  /** Chromium's own sandbox (needs an unprivileged user and user namespaces). */
  sandbox?: boolean;
  logger: Logger;
}

const CLOSE_TIMEOUT_MS = 10_000;
/** A browser that dies sooner than this after its launch is relaunched on demand only. */
const EAGER_RELAUNCH_AFTER_MS = 5_000;

/**
 * Owns the one Chromium of a renderer: launches it on first use, relaunches it after it dies
 * (eagerly in the background, or when next asked for), and can be told to restart it when a page
 * cannot be closed. Callers never keep a Browser across awaits without checking isCurrent().
 */
export class BrowserHost {
  readonly #opts: BrowserHostOptions;
  #browser: Browser | undefined;
  #launching: Promise<Browser> | undefined;
  #launchedAt = 0;
  #launches = 0;
  #closed = false;

  constructor(opts: BrowserHostOptions) {
    this.#opts = opts;
  }

  browser(): Promise<Browser> {
    if (this.#closed) return Promise.reject(new Error('the renderer is closed'));
    if (this.#browser?.isConnected()) return Promise.resolve(this.#browser);
    this.#launching ??= this.#launch().finally(() => {
      this.#launching = undefined;
    });
    return this.#launching;
  }

  /** True while `browser` is the live browser of this host. */
  isCurrent(browser: Browser): boolean {
    return browser === this.#browser && browser.isConnected();
  }

  get launches(): number {
    return this.#launches;
  }

  get connected(): boolean {
    return this.#browser?.isConnected() ?? false;
  }

  /** Closes the current browser (killing its renderers); the next browser() launches a new one. */
  async restart(reason: string): Promise<void> {
    const old = this.#browser;
    this.#browser = undefined;
    this.#opts.logger.warn('restarting chromium', { reason });
    if (old) await closeQuietly(old, this.#opts.logger);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const launched = await this.#launching?.catch(() => undefined);
    const browsers = new Set([this.#browser, launched].filter((b): b is Browser => b !== undefined));
    this.#browser = undefined;
    await Promise.all([...browsers].map((b) => closeQuietly(b, this.#opts.logger)));
  }

  async #launch(): Promise<Browser> {
    const started = Date.now();
    // Loaded on the first launch, not with the module: Playwright is the largest module of a
    // process (~0.5 s to load on a loaded 2-core machine), and the embedded profile imports the
    // renderer before its ingress listens, while Chromium starts beside it.
    const { chromium } = await import('playwright');
    const browser = await chromium.launch({
      executablePath: this.#opts.executablePath,
      // Its pages are quiet (quiet-page.ts): each draws the frames its FrameClock asks for.
      args: [...this.#opts.args, ...FRAME_CONTROL_ARGS],
      headless: true,
      chromiumSandbox: this.#opts.sandbox ?? false,
      timeout: 30_000,
      // The app drains and closes the renderer on shutdown; Playwright must not kill the
      // browser under in-flight renders when the signal arrives.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    if (this.#closed) {
      await closeQuietly(browser, this.#opts.logger);
      throw new Error('the renderer is closed');
    }
    this.#launches++;
    this.#launchedAt = Date.now();
    this.#browser = browser;
    browser.on('disconnected', () => this.#onDisconnected(browser));
    this.#opts.logger.info('chromium launched', {
      version: browser.version(),
      executablePath: this.#opts.executablePath,
      sandbox: this.#opts.sandbox ?? false,
      launchMs: Date.now() - started,
    });
    return browser;
  }

  #onDisconnected(browser: Browser): void {
    if (browser !== this.#browser) return; // restarted or closed on purpose
    this.#browser = undefined;
    const livedMs = Date.now() - this.#launchedAt;
    this.#opts.logger.error('chromium disconnected', { livedMs });
    // Relaunch now so the next job does not pay for it, unless it keeps dying at once: then wait
    // for demand, which spaces launches out instead of looping.
    if (!this.#closed && livedMs >= EAGER_RELAUNCH_AFTER_MS) {
      this.browser().catch((err: unknown) => this.#opts.logger.error('chromium relaunch failed', { err }));
    }
  }
}

async function closeQuietly(browser: Browser, logger: Logger): Promise<void> {
  try {
    await withDeadline(browser.close(), CLOSE_TIMEOUT_MS);
  } catch (err) {
    logger.error('chromium did not close cleanly', { err });
  }
}
