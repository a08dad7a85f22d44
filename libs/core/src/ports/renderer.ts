import type { FailureCodeValue } from '../failure.ts';
import type { RenderSource } from '@pressroom/schemas';

export interface PdfInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string[];
  creator?: string;
  producer?: string;
}

export interface RenderJob {
  source: RenderSource;
  output: 'pdf' | 'png';
  pdfMetadata?: PdfInfo;
  /** The whole render (evaluation, layout, printing) must end within this time. */
  timeoutMs: number;
  /** Sync-lane jobs take the next free page before any waiting async job. Default 'async'. */
  lane?: 'sync' | 'async';
}

export interface RenderOutput {
  bytes: Uint8Array;
  contentType: string;
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
