import type { AssetSource } from '@pressroom/core';
import type { RenderRequested } from '@pressroom/schemas';
import { describe, expect, it } from 'vitest';
import { renderJobFor } from './render-worker.ts';

function requested(data: Partial<RenderRequested['data']> = {}): RenderRequested {
  return {
    eventId: '0190f0e0-0000-7000-8000-000000000001',
    type: 'RenderRequested',
    version: 1,
    occurredAt: '2030-01-01T00:00:00.000Z',
    requestId: 'req-1',
    tenantId: 'tenant-a',
    data: { mode: 'async', source: { kind: 'html', html: '<p>hi</p>' }, output: 'pdf', storage: { kind: 'default' }, ...data },
  };
}

describe('renderJobFor', () => {
  it("lets pdfParams.timeout shorten the render's time limit, never lengthen it, and asks for the HTML of a debug render", () => {
    const deps = { renderTimeoutMs: 12_000 };
    expect(renderJobFor(requested({ pdfParams: { timeout: 5_000 } }), deps).timeoutMs).toBe(5_000);
    expect(renderJobFor(requested({ pdfParams: { timeout: 60_000 } }), deps).timeoutMs).toBe(12_000);
    expect(renderJobFor(requested({ pdfParams: { timeout: 0 } }), deps).timeoutMs).toBe(12_000);
    expect(renderJobFor(requested({ debug: { variables: [], unusedData: [] } }), deps).debug).toBe(true);
    expect(renderJobFor(requested(), deps).debug).toBeUndefined();
  });

  it('passes page setup, readiness, the header and footer and the tenant assets through to the renderer', () => {
    // Given a template request with every issue-3 field, and an asset factory
    const source = {
      kind: 'template' as const,
      templateId: 't1',
      templateVersion: 3,
      content: '<p><%= it.x %></p>',
      header: '<p>H <%= it.$page %></p>',
      footer: '<p>F</p>',
      data: { x: 1 },
    };
    const assets: AssetSource = { get: async () => undefined };
    const askedFor: string[] = [];

    // When the job is built
    const job = renderJobFor(
      requested({
        source,
        output: 'png',
        pdfMetadata: { title: 'T' },
        pdfParams: { format: 'Letter', landscape: true, hasCover: true },
        ready: { expression: 'window.done' },
      }),
      {
        renderTimeoutMs: 12_000,
        assetsFor: (tenantId) => {
          askedFor.push(tenantId);
          return assets;
        },
      },
    );

    // Then everything arrives, and the assets are the requesting tenant's
    expect(job).toEqual({
      source,
      output: 'png',
      timeoutMs: 12_000,
      lane: 'async',
      tenantId: 'tenant-a',
      pdfMetadata: { title: 'T' },
      pdfParams: { format: 'Letter', landscape: true, hasCover: true },
      ready: { expression: 'window.done' },
      assets,
    });
    expect(askedFor).toEqual(['tenant-a']);
  });

  it("carries the PNG pixel cap of the request's plan, for PNG output only", () => {
    const pngMaxPixelsForPlan = (plan: string | undefined) => (plan === 'standard' ? 1_000_000 : undefined);
    const deps = { renderTimeoutMs: 5_000, pngMaxPixelsForPlan };
    expect(renderJobFor(requested({ output: 'png', plan: 'standard' }), deps).maxPngPixels).toBe(1_000_000);
    expect(renderJobFor(requested({ output: 'pdf', plan: 'standard' }), deps)).not.toHaveProperty('maxPngPixels');
    expect(renderJobFor(requested({ output: 'png', plan: 'other' }), deps)).not.toHaveProperty('maxPngPixels');
  });

  it("carries the PNG page cap of the request's plan, for PNG output only", () => {
    const deps = { renderTimeoutMs: 5_000, pngMaxPagesForPlan: (plan: string | undefined) => (plan === 'high' ? 100 : undefined) };
    expect(renderJobFor(requested({ output: 'png', plan: 'high' }), deps).maxPngPages).toBe(100);
    expect(renderJobFor(requested({ output: 'pdf', plan: 'high' }), deps)).not.toHaveProperty('maxPngPages');
  });

  it('leaves out what the request does not have, and assets when the worker has no store', () => {
    const job = renderJobFor(requested({ mode: 'sync' }), { renderTimeoutMs: 5_000 });
    expect(job).toEqual({
      source: { kind: 'html', html: '<p>hi</p>' },
      output: 'pdf',
      timeoutMs: 5_000,
      lane: 'sync',
      tenantId: 'tenant-a',
    });
  });
});
