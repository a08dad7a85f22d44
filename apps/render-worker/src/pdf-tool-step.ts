import { partFileName, splitSpans } from '@pressroom/domain';
import { PdfToolFailure, type FailureCodeValue, type PdfToolkit, type ToolInputs } from '@pressroom/core';
import type { ToolOperation } from '@pressroom/schemas';

/** What a tool made: its files (the first is the request's artifact) and, for compress, the input's size. */
export interface ToolRun {
  files: { name: string; bytes: Uint8Array }[];
  originalBytes?: number;
}

const CODES: Record<PdfToolFailure['code'], FailureCodeValue> = {
  INPUT_INVALID: 'INPUT_INVALID',
  INPUT_UNAVAILABLE: 'INPUT_UNAVAILABLE',
  TOOL_TIMEOUT: 'RENDER_TIMEOUT',
  TOOL_ERROR: 'RENDER_ERROR',
};

/**
 * Runs one PDF tool request: reads its documents (ToolInputs: our storage, or the network through
 * the address policy), runs the toolkit (child processes under limits), and names the results.
 * Every failure is an outcome (`error`), never a thrown exception: a hostile document fails its
 * own request and nothing else.
 */
export async function runPdfTool(
  tools: { toolkit: PdfToolkit; inputs: ToolInputs },
  tenantId: string,
  op: ToolOperation,
  fileName: string,
): Promise<ToolRun | { error: { code: FailureCodeValue; message: string } }> {
  try {
    switch (op.tool) {
      case 'merge-pdfs': {
        const docs: Uint8Array[] = [];
        for (const url of op.urls) docs.push(await tools.inputs.read(tenantId, url));
        return { files: [{ name: fileName, bytes: await tools.toolkit.merge(docs) }] };
      }
      case 'split-pdf': {
        const doc = await tools.inputs.read(tenantId, op.url);
        const pages = await tools.toolkit.pageCount(doc);
        const plan =
          op.splitMode === 'ranges'
            ? { mode: 'ranges' as const, ranges: op.ranges ?? '' }
            : { mode: 'intervals' as const, interval: op.interval ?? 1 };
        const spans = splitSpans(plan, pages);
        if ('problem' in spans) return { error: { code: 'INPUT_INVALID', message: spans.problem } };
        const parts = await tools.toolkit.split(doc, spans.spans);
        return { files: parts.map((bytes, i) => ({ name: partFileName(fileName, i + 1), bytes })) };
      }
      case 'compress-pdf': {
        const doc = await tools.inputs.read(tenantId, op.url);
        return { files: [{ name: fileName, bytes: await tools.toolkit.compress(doc, op.compressLevel) }], originalBytes: doc.byteLength };
      }
      case 'update-pdf-metadata': {
        const doc = await tools.inputs.read(tenantId, op.url);
        return { files: [{ name: fileName, bytes: await tools.toolkit.updateMetadata(doc, op.metadata) }] };
      }
    }
  } catch (err) {
    if (err instanceof PdfToolFailure) return { error: { code: CODES[err.code], message: err.message } };
    throw err;
  }
}
