import type { CDPSession } from 'playwright';

/** A frame every 16.7 ms, as a 60 Hz screen asks for them. */
const FRAME_INTERVAL_MS = 1000 / 60;

/**
 * How long one page's frame may hold the line while another page waits for its own. A frame is
 * the document's animation-frame callbacks, then style, layout and paint: milliseconds. But a
 * frame asked for while the document runs a long script (a report computing for seconds, as the
 * slow documents of the end-to-end tests do for up to 10 s) waits for the script to end, and a
 * script looping inside a frame never ends: the limit spares the first and stops the second, and
 * is what another tenant's frame may wait at most for one.
 */
export const FRAME_HOLD_LIMIT_MS = 15_000;

/**
 * One frame at a time across the pages of a browser. Chromium's display compositor refuses a
 * begin frame issued while another page's is under way: its GPU process exits ("Got overlapping
 * IssueExternalBeginFrame") and every page's frames with it, so two jobs needing frames at once
 * (two PNGs, two scripted documents) took the browser down until frames were queued here.
 *
 * A frame answers once the page's main thread has run it: a page with nothing new to draw answers
 * at once even while a script runs, but one with changes waits for the script under way (seconds,
 * for a long computation), and one looping inside the frame (in requestAnimationFrame) never
 * answers: it would hold every other page's frames until its job's time limit. So a frame that has
 * held the line for `holdLimitMs` while another waits is told (`onHeld`): its page is closed, which
 * ends its frame, and the line goes on.
 */
export class FrameLine {
  readonly #holdLimitMs: number;
  #tail: Promise<unknown> = Promise.resolve();
  #waiting = 0;
  #current: { since: number; onHeld: (() => void) | undefined; told: boolean } | undefined;

  constructor(holdLimitMs = FRAME_HOLD_LIMIT_MS) {
    this.#holdLimitMs = holdLimitMs;
  }

  run<T>(frame: () => Promise<T>, onHeld?: () => void): Promise<T> {
    this.#waiting++;
    this.#tellIfHeld();
    const go = async (): Promise<T> => {
      this.#waiting--;
      const current = { since: performance.now(), onHeld, told: false };
      this.#current = current;
      const check = setTimeout(() => this.#tellIfHeld(), this.#holdLimitMs);
      check.unref();
      try {
        return await frame();
      } finally {
        clearTimeout(check);
        if (this.#current === current) this.#current = undefined;
      }
    };
    const next = this.#tail.then(go, go);
    this.#tail = next.catch(() => {});
    return next;
  }

  #tellIfHeld(): void {
    const current = this.#current;
    if (!current || current.told || this.#waiting === 0) return;
    if (performance.now() - current.since < this.#holdLimitMs) return;
    current.told = true;
    current.onHeld?.();
  }
}

const lines = new WeakMap<object, FrameLine>();

/** The FrameLine of a browser (any object standing for it); `holdLimitMs` when it is made. */
export function frameLineOf(browser: object, holdLimitMs = FRAME_HOLD_LIMIT_MS): FrameLine {
  let line = lines.get(browser);
  if (!line) {
    line = new FrameLine(holdLimitMs);
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
  readonly #onHeld: (() => void) | undefined;
  #running = false;
  #looping = false;

  /** `onHeld`: one of this page's frames held the browser's FrameLine too long (see there). */
  constructor(cdp: CDPSession, line: FrameLine, onHeld?: () => void) {
    this.#cdp = cdp;
    this.#line = line;
    this.#onHeld = onHeld;
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
          await this.#line.run(() => this.#cdp.send('HeadlessExperimental.beginFrame', { interval: FRAME_INTERVAL_MS }), this.#onHeld);
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
