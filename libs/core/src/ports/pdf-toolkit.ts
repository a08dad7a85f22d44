import type { CompressLevel, PageSpan, PdfToolMetadata } from '@pressroom/domain';

/**
 * What the PDF tools do to documents already in hand (bytes in, bytes out). Adapters run the
 * work outside this process (qpdf, Ghostscript as child processes with a time limit and memory
 * caps), so a hostile or broken PDF costs a failed call, never a crashed or wedged process.
 *
 * Failures reject with a PdfToolFailure: `INPUT_INVALID` for a document that cannot be read
 * (the caller's fault), `TOOL_TIMEOUT` for one that takes too long, `TOOL_ERROR` for ours.
 */
export interface PdfToolkit {
  pageCount(pdf: Uint8Array): Promise<number>;
  /** One document with the pages of every input, in order. */
  merge(pdfs: readonly Uint8Array[]): Promise<Uint8Array>;
  /** One document per span, in the order of the spans. */
  split(pdf: Uint8Array, spans: readonly PageSpan[]): Promise<Uint8Array[]>;
  /** The smaller of the recompressed document and a losslessly repacked one. */
  compress(pdf: Uint8Array, level: CompressLevel): Promise<Uint8Array>;
  /** The document with its info dictionary (and catalog MarkInfo, header version) set. */
  updateMetadata(pdf: Uint8Array, metadata: PdfToolMetadata): Promise<Uint8Array>;
}

export type PdfToolFailureCode = 'INPUT_INVALID' | 'INPUT_UNAVAILABLE' | 'TOOL_TIMEOUT' | 'TOOL_ERROR';

export class PdfToolFailure extends Error {
  readonly code: PdfToolFailureCode;
  constructor(code: PdfToolFailureCode, message: string) {
    super(message);
    this.code = code;
    this.name = 'PdfToolFailure';
  }
}
