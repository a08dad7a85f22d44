import type { RenderJob } from '@pressroom/core';
import type { PageSetup } from './page-setup.ts';

/**
 * Markup through which a document can ask for script, or whose rendering depends on whether
 * script runs: script elements, `<noscript>` (shown only without script), event-handler
 * attributes, javascript:/vbscript: URLs, and every element that makes a nested browsing context
 * or plugin (a frame's document is out of reach of this scan: `srcdoc` holds its markup escaped),
 * and a meta refresh (a navigation that may come after the job, while the page holds it).
 * Deliberately broad: text that merely looks like one of these (`on=` in prose) only sends the
 * job down the ordinary path.
 */
const SCRIPTING =
  /<\s*\/?\s*(?:script|noscript|iframe|frame|frameset|object|embed|applet|portal|fencedframe|marquee)\b|\bon[a-z-]+\s*=|(?:java|vb)script\s*:|srcdoc|http-equiv\s*=\s*["']?\s*refresh/i;

/**
 * Whether a job runs with script execution turned off in its page (the script-free path,
 * warm-page.ts): raw HTML with no sign of script (SCRIPTING), no readiness signal (a selector is
 * polled and an expression evaluated in the page), and no header or footer (printed from
 * templates in the page). A template job runs tenant code (its Eta template) in the page, so it
 * is never script-free.
 *
 * The scan only tells what the document wants; what makes the path safe is that Chromium runs no
 * script of the document at all (Emulation.setScriptExecutionDisabled), so a sign the scan missed
 * cannot run either. Its cost is the other way round: a document wrongly judged script-free
 * would print without its scripts, hence the broad pattern.
 */
export function isScriptFree(job: RenderJob, setup: PageSetup): boolean {
  if (job.source.kind !== 'html') return false;
  if (job.ready?.selector !== undefined || job.ready?.expression !== undefined) return false;
  if (setup.chromiumBands) return false;
  return !SCRIPTING.test(job.source.html);
}
