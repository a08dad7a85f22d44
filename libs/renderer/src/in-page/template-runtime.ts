// Runs INSIDE the Chromium page, never in Node: eta-bundle.ts bundles this file (with eta/core)
// into a script that the page pool evaluates in every fresh page document. Template code compiled
// by Eta therefore sees only what any script in that page sees: no process, no require, no files.
import { Eta } from 'eta/core';
import type { TemplateFunction } from 'eta/core';
import {
  ETA_OPTIONS,
  RUNTIME_GLOBAL,
  type CompiledTemplateResult,
  type PageRuntime,
  type TemplateResult,
  type TemplateResults,
} from './runtime-contract.ts';

const eta = new Eta(ETA_OPTIONS);

// Eta appends the whole compiled function to a syntax error; the tenant wants the first part.
const COMPILED_DUMP = /\n=+\n[\s\S]*$/;
const MAX_MESSAGE = 2000;

function renderTemplate(content: string, data: Record<string, unknown>): TemplateResult {
  try {
    return { ok: true, html: eta.renderString(content, data) };
  } catch (e) {
    return { ok: false, message: describe(e) };
  }
}

// Eta's compile(), split: its parse (compileToString, most of the cost) can be skipped with a body
// compiled before; the Function is built here, in the page, exactly as compile() builds it.
function renderCompiled(content: string, data: Record<string, unknown>, compiled: string | undefined): CompiledTemplateResult {
  let body: string;
  let fn: TemplateFunction;
  try {
    body = compiled ?? eta.compileToString(content, { async: false });
    // Exactly what Eta's own compile() does with the body; in the page, never in Node.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    fn = new Function(eta.config.varName, 'options', body) as typeof fn;
  } catch {
    // Eta's own path, for its own words about the syntax error.
    return renderTemplate(content, data);
  }
  try {
    const html = eta.render(fn, data);
    return compiled === undefined ? { ok: true, html, compiled: body } : { ok: true, html };
  } catch (e) {
    return { ok: false, message: describe(e) };
  }
}

function renderEach(content: string, data: Record<string, unknown>[]): TemplateResults {
  try {
    const fn = eta.compile(content);
    return { ok: true, html: data.map((it) => eta.render(fn, it)) };
  } catch (e) {
    return { ok: false, message: describe(e) };
  }
}

function describe(e: unknown): string {
  const err = e instanceof Error ? e : new Error(String(e));
  const text = `${err.name}: ${err.message}`.replace(COMPILED_DUMP, '').trim();
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

// The Eta class is exposed too, for templates that want their own instance (partials, options).
const runtime: PageRuntime & { Eta: typeof Eta } = { Eta, renderTemplate, renderCompiled, renderEach };
(globalThis as unknown as Record<string, PageRuntime>)[RUNTIME_GLOBAL] = runtime;
