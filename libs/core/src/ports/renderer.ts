import type { FailureCodeValue } from '../failure.ts';
import type { OutputKind, PdfMetadata, PdfParams, ReadySignal, RenderSource } from '@pressroom/schemas';

/** The document information a render writes into its PDF: the request's `metadata`, as its schema says. */
export type PdfInfo = PdfMetadata;

export interface RenderJob {
  source: RenderSource;
  output: OutputKind;
  pdfMetadata?: PdfInfo;
  /** The whole render (evaluation, layout, printing) must end within this time. */
  timeoutMs: number;
  /** Sync-lane jobs take the next free page before any waiting async job. Default 'async'. */
  lane?: 'sync' | 'async';
  /** Page setup (merged template + request values). Default: A4, CSS @page wins, backgrounds printed. */
  pdfParams?: PdfParams;
  /** Extra readiness condition, waited for within `timeoutMs` after fonts and images. */
  ready?: ReadySignal;
  /**
   * The tenant's assets (fonts, images). The page reaches them only as
   * `https://assets.pressroom.invalid/<name>`, answered from here, never from the network.
   */
  assets?: AssetSource;
  /** The tenant's plan's PNG pixel cap; the renderer's own limit applies when it is lower. */
  maxPngPixels?: number;
  /** The tenant's plan's pngMaxPages: most sheets a PNG stacks (OUTPUT_TOO_LARGE above). */
  maxPngPages?: number;
  /** Also answer the HTML the page printed (`RenderOutput.html`), for a `debug` render's diagnostics. */
  debug?: boolean;
  /**
   * The tenant: scopes the renderer's compiled templates (compiled once per template version and
   * tenant, never shared across tenants). Without it, a template is compiled for every render.
   */
  tenantId?: string;
}

/** Where a render finds the tenant's uploaded assets; resolves undefined for an unknown name. */
export interface AssetSource {
  get(name: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
}

/** The reserved origin under which a page sees the tenant's assets (.invalid never resolves). */
export const ASSET_ORIGIN = 'https://assets.pressroom.invalid';

export interface RenderOutput {
  bytes: Uint8Array;
  contentType: string;
  /** The document's HTML as printed (the template's output), when the job asked for `debug`. */
  html?: string;
}

/**
 * Turns a job into file bytes with a browser.
 *
 * Adapters guarantee: template code is evaluated only inside the browser (never in this
 * process); the page cannot reach files, loopback, private or metadata addresses; failures
 * reject with a RenderFailure whose code says why; one bad job never breaks later jobs.
 */
export interface Renderer {
  render(job: RenderJob): Promise<RenderOutput>;
  /** The browser's name and version (e.g. "Chromium 156.0.8078.79"), recorded on render outcomes; undefined when unknown. */
  browserVersion?(): Promise<string | undefined>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class RenderFailure extends Error {
  readonly code: FailureCodeValue;
  constructor(code: FailureCodeValue, message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'RenderFailure';
    this.code = code;
  }
}
