// Shared by the page-side runtime and the Node side. Types and one constant only: importing this
// file must not load Eta into the server process.

export type TemplateResult = { ok: true; html: string } | { ok: false; message: string };
export type TemplateResults = { ok: true; html: string[] } | { ok: false; message: string };
/** A render that also answers the template's compiled body when it compiled it (`compiled` not given). */
export type CompiledTemplateResult = { ok: true; html: string; compiled?: string } | { ok: false; message: string };

export interface PageRuntime {
  renderTemplate(content: string, data: Record<string, unknown>): TemplateResult;
  /**
   * Renders with the body Eta compiled for this template earlier (in another page of the same
   * tenant), or compiles it here and answers the body for the next render to reuse.
   */
  renderCompiled(content: string, data: Record<string, unknown>, compiled: string | undefined): CompiledTemplateResult;
  /** Compiles once and renders once per data object (a running header, once per page). */
  renderEach(content: string, data: Record<string, unknown>[]): TemplateResults;
}

/** The global the runtime bundle defines in every page document. */
export const RUNTIME_GLOBAL = '__pressroom';

// autoEscape: `<%= %>` HTML-escapes, `<%~ %>` is raw, as tenants expect from Eta's defaults.
// useWith: false: data is reached as `it.x`, so a data key can never shadow a global (`Math`,
// `JSON`) or a helper the template declares, and no `with` statement slows every lookup.
// debug: true: runtime errors name the template line (and show the lines around it).
/** How the page's Eta is configured; the other options keep Eta's defaults. */
export const ETA_OPTIONS = { autoEscape: true, useWith: false, debug: true, cache: false } as const;
