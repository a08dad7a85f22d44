import { createToolInputs, type ArtifactStorage, type PdfToolkit, type ToolInputs } from '@pressroom/core';
import type { PressroomConfig } from './config.ts';
import { createQpdfToolkit } from '@pressroom/pdf-tools';
import { pinnedFetch } from '@pressroom/renderer';

/**
 * The PDF tools of a render worker: qpdf and Ghostscript (installed by infra/pdf-tools/ensure.sh)
 * under the tool time limit, and the input reader (our storage, else the pinned https fetch).
 */
export function openPdfTools(config: PressroomConfig, storage: ArtifactStorage): { toolkit: PdfToolkit; inputs: ToolInputs } {
  return {
    toolkit: createQpdfToolkit({
      timeoutMs: config.tools.timeoutMs,
      maxOutputBytes: Math.max(config.tools.maxInputBytes * 4, 64 * 1024 * 1024),
    }),
    inputs: createToolInputs({
      storage,
      maxBytes: config.tools.maxInputBytes,
      timeoutMs: config.tools.timeoutMs,
      fetch: async ({ url, addresses, timeoutMs, maxBytes }) => {
        const res = await pinnedFetch({ url, addresses, method: 'GET', headers: { accept: 'application/pdf' }, timeoutMs, maxBytes });
        return { status: res.status, body: res.body };
      },
    }),
  };
}
