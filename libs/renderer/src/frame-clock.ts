import type { CDPSession } from 'playwright';

/** A frame every 16.7 ms, as a 60 Hz screen asks for them. */
const FRAME_INTERVAL_MS = 1000 / 60;

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
  #running = false;
  #looping = false;

  constructor(cdp: CDPSession) {
    this.#cdp = cdp;
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
          await this.#cdp.send('HeadlessExperimental.beginFrame', { interval: FRAME_INTERVAL_MS });
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
