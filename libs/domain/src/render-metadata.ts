import type { Http } from '@pressroom/schemas';

/** The spec's formats: "<number> seconds" and "<number> kB" (1 kB = 1000 bytes). */
export function formatRenderMetadata(executionMs: number, bytes: number, cached?: boolean): Http.RenderMetadata {
  const seconds = Math.round(executionMs) / 1000;
  const kB = Math.round(bytes / 10) / 100;
  return { executionTime: `${seconds} seconds`, fileSize: `${kB} kB`, ...(cached ? { cached: true } : {}) };
}
