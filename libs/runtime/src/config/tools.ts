import { Int, slice } from './setting.ts';

/** The PDF tools (/v1/tools/*): qpdf and Ghostscript runs, and their input documents. */
export const toolsSlice = slice({
  env: {
    PRESSROOM_TOOL_TIMEOUT_MS: Int(
      'Time limit of one program run of a PDF tool (qpdf or Ghostscript on one document), and of fetching one input document.',
      60000,
      100,
    ),
    PRESSROOM_TOOL_MAX_INPUT_BYTES: Int(
      'Largest input document of a PDF tool (fetched or uploaded), and largest upload through a signed upload URL.',
      50 * 1024 * 1024,
      1024,
    ),
  },
  read(c) {
    return {
      /** The PDF tools (/v1/tools/*). */
      tools: { timeoutMs: Number(c.PRESSROOM_TOOL_TIMEOUT_MS), maxInputBytes: Number(c.PRESSROOM_TOOL_MAX_INPUT_BYTES) },
    };
  },
});
