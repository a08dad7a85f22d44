import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createEventFactory,
  createStoredPayloads,
  payloadFingerprint,
  RenderFailure,
  silentLogger,
  systemClock,
  topicNames,
  uuidV7Ids,
  type LogRecord,
} from '@pressroom/core';
import { payloadKey } from '@pressroom/domain';
import { createMetrics } from '@pressroom/observability';
import { createFakeRenderer, waitFor, type FakeRenderer } from '@pressroom/testing';
import { startRenderWorker } from './render-worker.ts';
import { openEmbeddedWorkerParts, type EmbeddedWorkerParts } from './test-support/embedded-parts.ts';

/**
 * The worker's consume → render → store → outcome, on the embedded log and local files, with a
 * fake renderer (no Chromium): Given a RenderRequested on the log, When the worker takes it, Then
 * the outcome event and the stored file are what the renderer answered.
 */
describe('render worker (fake renderer, embedded log)', () => {
  const topics = topicNames('unit');
  const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
  let parts: EmbeddedWorkerParts;

  beforeEach(async () => {
    parts = await openEmbeddedWorkerParts('pressroom-worker-unit-');
  });
  afterEach(async () => {
    await parts.close();
  });

  const run = async (renderer: FakeRenderer, output: 'pdf' | 'png', opts: { stored?: 'kept' | 'removed' } = {}) => {
    const { log, storage, own } = parts;
    const worker = await startRenderWorker({
      log,
      renderer,
      storage,
      topics,
      event,
      logger: silentLogger,
      metrics: createMetrics(),
      concurrency: 1,
      renderTimeoutMs: 5_000,
      group: 'unit.renderer',
      workerId: 'unit-worker',
      retry: { baseDelayMs: 1, maxDelayMs: 1, maxAttempts: 2 },
    });
    const requestId = uuidV7Ids.next();
    const inline = event(
      'RenderRequested',
      { requestId, tenantId: 'tenant-a' },
      { mode: 'async', source: { kind: 'html', html: '<p>hi</p>' }, output, storage: { kind: 'default' } },
    );
    // As the ingress logs it with PRESSROOM_PAYLOADS=store: the payload in our storage, a reference on the log.
    const [requested] = opts.stored ? (await createStoredPayloads({ own }).stage([inline], Date.now() + 5_000)).requests : [inline];
    if (opts.stored === 'removed') await own.delete(payloadKey('tenant-a', requestId));
    await log.append(topics.requestedAsync, [requested!]);
    const outcome = await waitFor(
      async () => {
        const seen: LogRecord[] = [];
        await log.readAll([topics.completed], (r) => void seen.push(r));
        return seen.map((r) => r.event).find((e) => e.type === 'RenderSucceeded' || e.type === 'RenderFailed');
      },
      { timeoutMs: 10_000, intervalMs: 20, description: 'the render outcome on the log' },
    );
    await worker.stop();
    return { requestId, outcome };
  };

  it('stores what the renderer produced and records RenderSucceeded with its artifact', async () => {
    // Given a renderer that answers PNG bytes
    const renderer = createFakeRenderer();
    // When the worker takes a PNG request
    const { outcome } = await run(renderer, 'png');
    // Then the renderer got the request's job, and the stored file is its answer
    expect(renderer.jobs).toHaveLength(1);
    expect(renderer.jobs[0]).toMatchObject({ output: 'png', source: { kind: 'html', html: '<p>hi</p>' } });
    expect(outcome?.type).toBe('RenderSucceeded');
    if (outcome?.type !== 'RenderSucceeded') return;
    expect(outcome.data.artifact).toMatchObject({ contentType: 'image/png', bytes: 8, target: { kind: 'default' } });
    expect(outcome.data.artifact.key.endsWith('.PNG')).toBe(true);
    const stored = await parts.own.get(outcome.data.artifact.key);
    expect(stored?.contentType).toBe('image/png');
    expect(Array.from(stored?.bytes ?? [])).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('reads a stored payload back and renders it; the outcome carries its hash and size', async () => {
    const renderer = createFakeRenderer();
    const { outcome } = await run(renderer, 'pdf', { stored: 'kept' });
    expect(renderer.jobs[0]).toMatchObject({ source: { kind: 'html', html: '<p>hi</p>' } });
    expect(outcome?.type).toBe('RenderSucceeded');
    expect(outcome?.data).toMatchObject({ payload: payloadFingerprint({ kind: 'html', html: '<p>hi</p>' }) });
  });

  it('fails a request whose stored payload is gone PAYLOAD_REMOVED, not retried, without rendering', async () => {
    const renderer = createFakeRenderer();
    const { outcome } = await run(renderer, 'pdf', { stored: 'removed' });
    expect(renderer.jobs).toHaveLength(0);
    expect(outcome?.type).toBe('RenderFailed');
    if (outcome?.type !== 'RenderFailed') return;
    expect(outcome.data.error.code).toBe('PAYLOAD_REMOVED');
    expect(outcome.data.retriable).toBe(false);
  });

  it('records the renderer’s failure code as RenderFailed, and stores nothing', async () => {
    // Given a renderer that fails the document
    const renderer = createFakeRenderer(() => new RenderFailure('TEMPLATE_ERROR', 'it.x is not defined'));
    // When the worker takes a PDF request
    const { outcome } = await run(renderer, 'pdf');
    // Then the outcome is RenderFailed with that code
    expect(outcome?.type).toBe('RenderFailed');
    if (outcome?.type !== 'RenderFailed') return;
    expect(outcome.data.error.code).toBe('TEMPLATE_ERROR');
    expect(outcome.data.worker).toBe('unit-worker');
  });
});
