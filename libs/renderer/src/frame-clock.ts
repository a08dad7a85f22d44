import type { CDPSession } from 'playwright';

/** A frame every 16.7 ms, as a 60 Hz screen asks for them. */
const FRAME_INTERVAL_MS = 1000 / 60;

/**
 * One frame at a time across the pages of a browser. Chromium's display compositor refuses a
 * begin frame issued while another page's is under way: its GPU process exits ("Got overlapping
 * IssueExternalBeginFrame") and every page's frames with it, so two jobs needing frames at once
 * (two PNGs, two scripted documents) took the browser down until frames were queued here. A page
 * whose main thread is stuck in a tenant's loop still answers its frame at once (without damage):
 * it does not hold the line.
 */
export class FrameLine {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(frame: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(frame, frame);
    this.#tail = next.catch(() => {});
    return next;
  }
}

const lines = new WeakMap<object, FrameLine>();

/** The FrameLine of a browser (any object standing for it). */
export function frameLineOf(browser: object): FrameLine {
  let line = lines.get(browser);
  if (!line) {
    line = new FrameLine();
    lines.set(browser, line);
  }
  return line;
}

/**
 * The frames of a page whose frames are ours to give (a quiet page, see quiet-page.ts): none
 * unless started. While started, it asks Chromium for a frame (HeadlessExperimental.beginFrame)
 * every 16.7 ms, one at a time, as the display would: what a document's requestAnimationFrame,
 * its observers' callbacks, its CSS animations and a screenshot wait for. A job whose document
 * runs script or whose output is a PNG runs with the clock started; a script-free PDF runs with
 * none, and Chromium then spends nothing on the screen's frames of a document nobody looks at
 * (style, paint and commit of each: about a sixth of Chromium's main-thread time per render of
 * the invoice, issue 13). Printing needs no frame.
 */
export class FrameClock {
  readonly #cdp: CDPSession;
  readonly #line: FrameLine;
  #running = false;
  #looping = false;

  constructor(cdp: CDPSession, line: FrameLine) {
    this.#cdp = cdp;
    this.#line = line;
  }

  get running(): boolean {
    return this.#running;
  }

  start(): void {
    this.#running = true;
    if (this.#looping) return; // the loop under way goes on
    this.#looping = true;
    void this.#run();
  }

  /** No frame after the one under way, if any. */
  stop(): void {
    this.#running = false;
  }

  async #run(): Promise<void> {
    try {
      while (this.#running) {
        const began = performance.now();
        try {
          await this.#line.run(() => this.#cdp.send('HeadlessExperimental.beginFrame', { interval: FRAME_INTERVAL_MS }));
        } catch {
          // The page is gone or its session closed (a crash, a dispose): no frame will come again.
          this.#running = false;
          return;
        }
        const wait = FRAME_INTERVAL_MS - (performance.now() - began);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } finally {
      // In the same turn as the last check of #running: a start() after it begins a new loop.
      this.#looping = false;
    }
  }
}
