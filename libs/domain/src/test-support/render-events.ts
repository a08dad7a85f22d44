import type { RenderFailed, RenderRequested, RenderSucceeded } from '@pressroom/schemas';

/**
 * The events of one sync HTML render of tenant t1, for the domain's specs: requested (e1, at
 * 10:00:00), then either succeeded (e2, 10:00:01, a 2 kB PDF in 900 ms) or failed (e3, 10:00:02,
 * RENDER_TIMEOUT after 60 s).
 */
export function syncRenderEvents(requestId: string): { requested: RenderRequested; succeeded: RenderSucceeded; failed: RenderFailed } {
  const head = (n: number) => ({
    requestId,
    tenantId: 't1',
    eventId: `e${n}`,
    version: 1 as const,
    occurredAt: `2026-11-22T10:00:0${n - 1}.000Z`,
  });
  return {
    requested: {
      ...head(1),
      type: 'RenderRequested',
      data: { mode: 'sync', source: { kind: 'html', html: '<p>x</p>' }, output: 'pdf', storage: { kind: 'default' } },
    },
    succeeded: {
      ...head(2),
      type: 'RenderSucceeded',
      data: {
        mode: 'sync',
        artifact: { target: { kind: 'default' }, key: 't1/x.pdf', contentType: 'application/pdf', bytes: 2048 },
        executionMs: 900,
        worker: 'w',
      },
    },
    failed: {
      ...head(3),
      type: 'RenderFailed',
      data: { mode: 'sync', error: { code: 'RENDER_TIMEOUT', message: 'late' }, executionMs: 60000, worker: 'w' },
    },
  };
}
