import { RenderFailure, type RenderJob, type Renderer, type RenderOutput } from '@pressroom/core';

/**
 * A Renderer without a browser, for unit tests of what sits around rendering (the worker's
 * consume → render → outcome). It records every job; `outcome` decides each answer: bytes, or a
 * RenderFailure to throw. Default: a small PDF-looking file for pdf, PNG bytes for png.
 */
export interface FakeRenderer extends Renderer {
  readonly jobs: RenderJob[];
}

export function createFakeRenderer(outcome?: (job: RenderJob, nth: number) => RenderOutput | RenderFailure): FakeRenderer {
  const jobs: RenderJob[] = [];
  return {
    jobs,
    async render(job) {
      jobs.push(job);
      const result = outcome ? outcome(job, jobs.length) : defaultOutput(job);
      if (result instanceof RenderFailure) throw result;
      return result;
    },
    async ping() {},
    async close() {},
  };
}

function defaultOutput(job: RenderJob): RenderOutput {
  return job.output === 'png'
    ? { bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), contentType: 'image/png' }
    : { bytes: new TextEncoder().encode('%PDF-1.7\n%fake\n'), contentType: 'application/pdf' };
}
