import { RenderFailure } from '@pressroom/core';
import { DeadlineExceeded } from './deadline.ts';
import { PoolClosedError } from './page-pool.ts';

/** What the renderer knows about the page when a job failed, besides the error itself. */
export interface FailureFacts {
  /** The job's time limit, for the message. */
  timeoutMs: number;
  /** The page's main frame left the job's document for another one (meta refresh, location, form). */
  navigated: boolean;
  /** The page crashed or was closed while the job ran. */
  pageGone: boolean;
  /** The page was closed, not by a crash nor by us: its own script called window.close(). */
  closedItself?: boolean;
  /** We closed the page because one of its frames held the others' past this limit, in ms (FrameLine). */
  frameHeldMs?: number;
}

export function frameHeldMessage(limitMs: number): string {
  return (
    `The document's scripts kept the page from drawing a frame for more than ${limitMs / 1000} seconds (a loop in a ` +
    'requestAnimationFrame or observer callback, or a script that never ends?) while other renders waited for theirs, so it was stopped.'
  );
}

/**
 * Playwright's wording when the document under an evaluation or a wait was replaced: its
 * context died with the document. The navigation event may reach us after this error does.
 */
const NAVIGATION_ERROR = /Execution context was destroyed|because of a navigation|Navigation interrupted|frame was detached/i;

/**
 * Playwright's wording for an exception thrown by JavaScript in the page while our helper code
 * ran there (waiting for fonts and images, reading the template result): `page.evaluate:
 * TypeError: …`. Our helpers run in the page's own world, so a page script that replaced what
 * they use (Promise.all, document.fonts, a prototype) makes them throw: the page's doing.
 */
const PAGE_SCRIPT_ERROR = /^[A-Za-z]+\.[A-Za-z]+: ((?:[A-Z][A-Za-z]*)?Error\b.*)$/;

export const NAVIGATION_REFUSED_MESSAGE =
  'The page navigated away from its document (a meta refresh, a change of location, window.open into the same ' +
  'window or a form submission). A document must render where it was loaded; links to other pages are fine, following them is not.';

/**
 * Turns whatever a render threw into the failure the caller sees: a code that says whose fault it
 * is (failure-fault.ts) and a message in our own words. Playwright's and Chromium's texts name
 * our automation (`page.evaluate: …`, `Protocol error …`) and mean nothing to a tenant, so none of
 * them is passed on; the renderer logs the original error instead.
 *
 * A navigation overrides whatever else went wrong (the wait that timed out, the evaluation that
 * lost its document): it is the cause.
 */
export function classifyRenderFailure(err: unknown, facts: FailureFacts): RenderFailure {
  const message = err instanceof Error ? err.message : String(err);
  if (facts.frameHeldMs !== undefined) return new RenderFailure('RENDER_TIMEOUT', frameHeldMessage(facts.frameHeldMs), { cause: err });
  if (facts.navigated || (!(err instanceof RenderFailure) && NAVIGATION_ERROR.test(message))) {
    return new RenderFailure('NAVIGATION_REFUSED', NAVIGATION_REFUSED_MESSAGE, { cause: err });
  }
  if (facts.closedItself) {
    return new RenderFailure(
      'NAVIGATION_REFUSED',
      'The page closed itself (window.close()). A document must stay open until it is printed.',
      {
        cause: err,
      },
    );
  }
  if (err instanceof RenderFailure) return err;
  if (err instanceof DeadlineExceeded || (err instanceof Error && err.name === 'TimeoutError')) {
    return new RenderFailure('RENDER_TIMEOUT', `The render did not finish within ${facts.timeoutMs} ms.`, { cause: err });
  }
  if (err instanceof PoolClosedError) return new RenderFailure('RENDER_ERROR', 'The renderer is closed.', { cause: err });
  const thrownInPage = facts.pageGone ? null : PAGE_SCRIPT_ERROR.exec(message.split('\n')[0] ?? '');
  if (thrownInPage?.[1]) return pageScriptFailure(thrownInPage[1], err);
  if (facts.pageGone) {
    return new RenderFailure('RENDER_ERROR', 'The browser page stopped during the render (it crashed or was closed).', { cause: err });
  }
  return new RenderFailure('RENDER_ERROR', 'The renderer failed unexpectedly.', { cause: err });
}

/**
 * The failure for an exception our own code in the page met because the page's scripts changed
 * what it uses (a prototype, a global, the document): the tenant's doing, so TEMPLATE_ERROR.
 * `thrown` is the exception as the page described it (its first line is kept).
 */
export function pageScriptFailure(thrown: string, cause?: unknown): RenderFailure {
  return new RenderFailure(
    'TEMPLATE_ERROR',
    `The page's own scripts broke the render: they changed something the page needs to be printed, and it failed with ${truncate(thrown.split('\n')[0] ?? '')}`,
    cause !== undefined ? { cause } : {},
  );
}

function truncate(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
