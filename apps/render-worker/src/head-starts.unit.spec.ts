import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createEventFactory,
  createPayloadHandoff,
  createRenderHeadStartLink,
  createStoredPayloads,
  silentLogger,
  systemClock,
  topicNames,
  uuidV7Ids,
  type LogRecord,
  type RenderJob,
  type Subscription,
} from '@pressroom/core';
import type { LogEvent, RenderRequested } from '@pressroom/schemas';
import { createMetrics, type Metrics } from '@pressroom/observability';
import { createFakeRenderer, waitFor, type FakeRenderer } from '@pressroom/testing';
import { startRenderWorker } from './render-worker.ts';
import { openEmbeddedWorkerParts, type EmbeddedWorkerParts } from './test-support/embedded-parts.ts';

/** The PDF the fake renderer answers for a job: its HTML, so a stored file says which request it came from. */
const echoHtml = (job: RenderJob) => ({
  bytes: new TextEncoder().encode(`%PDF-1.7\n${job.source.kind === 'html' ? job.source.html : '?'}\n`),
  contentType: 'application/pdf',
});

/**
 * The head start of the standalone service (RenderHeadStart): a sync request the ingress offers
 * before its append is rendered at once, and stored and recorded only once the log delivers it.
 * Real embedded log and local files; a fake renderer (no Chromium).
 */
describe('render worker head start (fake renderer, embedded log)', () => {
  const topics = topicNames('unit');
  const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
  let parts: EmbeddedWorkerParts;
  let metrics: Metrics;
  let worker: Subscription | undefined;

  beforeEach(async () => {
    parts = await openEmbeddedWorkerParts('pressroom-head-start-unit-');
    metrics = createMetrics();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await parts.close();
  });

  const start = async (renderer: FakeRenderer, concurrency: number) => {
    const headStart = createRenderHeadStartLink();
    const payloadHandoff = createPayloadHandoff();
    const { log, storage, own } = parts;
    worker = await startRenderWorker({
      log,
      renderer,
      storage,
      topics,
      event,
      logger: silentLogger,
      metrics,
      concurrency,
      renderTimeoutMs: 5_000,
      group: 'unit.renderer',
      workerId: 'unit-worker',
      payloadHandoff,
      headStart,
    });
    // As the ingress of the standalone service stages a request: its payload stored, handed over in memory.
    const payloads = createStoredPayloads({ own, handoff: payloadHandoff });
    const stage = async (html: string, requestId = uuidV7Ids.next()) => {
      const requested = event(
        'RenderRequested',
        { requestId, tenantId: 'tenant-a' },
        {
          mode: 'sync',
          source: { kind: 'html', html },
          output: 'pdf',
          storage: { kind: 'default' },
          acceptBy: new Date(Date.now() + 5_000).toISOString(),
        },
      );
      const staged = await payloads.stage([requested], Date.now() + 5_000);
      await staged.stored;
      return staged.requests[0] as RenderRequested;
    };
    return { headStart, stage };
  };

  const idOf = (e: LogEvent) => ('requestId' in e ? e.requestId : undefined);
  const completed = async () => {
    const seen: LogEvent[] = [];
    await parts.log.readAll([topics.completed], (r: LogRecord) => void seen.push(r.event));
    return seen;
  };
  const outcomeOf = (requestId: string) =>
    waitFor(
      async () => (await completed()).find((e) => idOf(e) === requestId && (e.type === 'RenderSucceeded' || e.type === 'RenderFailed')),
      { timeoutMs: 10_000, intervalMs: 10, description: 'the render outcome on the log' },
    );
  const keys = async (prefix: string) => {
    const found: string[] = [];
    if (!parts.own.list) throw new Error('the local store lists its keys');
    for await (const entry of parts.own.list(prefix)) found.push(entry.key);
    return found.sort();
  };
  const headStarts = async () =>
    Object.fromEntries((await metrics.renderHeadStartsTotal.get()).values.map((v) => [String(v.labels.outcome), v.value]));

  it('renders an offered request before it is on the log, and stores and records it once the log delivers it, rendered once', async () => {
    // Given a worker with a free slot
    const renderer = createFakeRenderer(echoHtml);
    const { headStart, stage } = await start(renderer, 2);
    const requested = await stage('<p>early</p>');
    // When the ingress offers the request, before its append
    headStart.offer([requested]);
    // Then the render begins, and nothing of it is stored or on the log yet
    await waitFor(async () => renderer.jobs.length === 1 || undefined, {
      timeoutMs: 5_000,
      intervalMs: 1,
      description: 'the render begun',
    });
    expect(renderer.jobs[0]).toMatchObject({ source: { kind: 'html', html: '<p>early</p>' }, lane: 'sync', tenantId: 'tenant-a' });
    expect(await completed()).toEqual([]);
    expect(await keys('tenant-a/')).toEqual([`tenant-a/${requested.requestId}.payload.json`]);
    // When the append lands, 60 ms after the offer
    await new Promise((r) => setTimeout(r, 60));
    await parts.log.append(topics.requestedSync, [requested]);
    // Then the delivery takes that render: one render, its file stored, its outcome on the log
    const outcome = await outcomeOf(requested.requestId);
    expect(outcome?.type).toBe('RenderSucceeded');
    if (outcome?.type !== 'RenderSucceeded') return;
    expect(renderer.jobs).toHaveLength(1);
    const file = await parts.own.get(outcome.data.artifact.key);
    expect(new TextDecoder().decode(file?.bytes)).toBe('%PDF-1.7\n<p>early</p>\n');
    expect((await completed()).map((e) => e.type)).toEqual(['RenderSucceeded']);
    // Its execution time counts from the offer, when the render began
    expect(outcome.data.executionMs).toBeGreaterThanOrEqual(60);
    expect(await headStarts()).toEqual({ taken: 1 });
  });

  it('drops a head start the ingress forgot: nothing stored or recorded for it, and its slot serves the next request', async () => {
    // Given a worker with one slot, and a request offered, then refused by the ingress (its append failed)
    const renderer = createFakeRenderer(echoHtml);
    const { headStart, stage } = await start(renderer, 1);
    const refused = await stage('<p>refused</p>');
    headStart.offer([refused]);
    headStart.forget([refused.requestId]);
    // When the next request reaches the log
    const next = await stage('<p>next</p>');
    await parts.log.append(topics.requestedSync, [next]);
    // Then it renders and succeeds; the refused one has no outcome and no file
    const outcome = await outcomeOf(next.requestId);
    expect(outcome?.type).toBe('RenderSucceeded');
    expect(renderer.jobs.map((j) => (j.source.kind === 'html' ? j.source.html : ''))).toEqual(['<p>refused</p>', '<p>next</p>']);
    expect((await completed()).filter((e) => idOf(e) === refused.requestId)).toEqual([]);
    expect(await keys('tenant-a/')).toEqual(
      [`tenant-a/${next.requestId}.pdf`, `tenant-a/${next.requestId}.payload.json`, `tenant-a/${refused.requestId}.payload.json`].sort(),
    );
    expect(await headStarts()).toEqual({ dropped: 1 });
  });

  it('renders from the log a delivered request that differs from the one offered under its id', async () => {
    // Given a request offered with one document, and the log holding another under the same id
    const renderer = createFakeRenderer(echoHtml);
    const { headStart, stage } = await start(renderer, 2);
    const offered = await stage('<p>offered</p>');
    headStart.offer([offered]);
    const delivered = await stage('<p>on the log</p>', offered.requestId);
    await parts.log.append(topics.requestedSync, [delivered]);
    // Then the file is the log's request, rendered on its own
    const outcome = await outcomeOf(offered.requestId);
    expect(outcome?.type).toBe('RenderSucceeded');
    if (outcome?.type !== 'RenderSucceeded') return;
    expect(renderer.jobs).toHaveLength(2);
    const file = await parts.own.get(outcome.data.artifact.key);
    expect(new TextDecoder().decode(file?.bytes)).toBe('%PDF-1.7\n<p>on the log</p>\n');
    expect(await headStarts()).toEqual({ dropped: 1 });
  });

  it('takes no head start without a free slot, and no async request', async () => {
    // Given a worker whose one sync slot is busy with a render that waits
    let finish: () => void = () => {};
    const gate = new Promise<void>((r) => (finish = r));
    const renderer = createFakeRenderer(echoHtml);
    const slow = { ...renderer, render: async (job: RenderJob) => (await gate, renderer.render(job)) };
    const { headStart, stage } = await start(slow, 1);
    const first = await stage('<p>first</p>');
    headStart.offer([first]);
    // When a second request is offered, and an async one
    const second = await stage('<p>second</p>');
    headStart.offer([second]);
    const asyncOne = { ...(await stage('<p>async</p>')), data: { ...second.data, mode: 'async' as const } };
    headStart.offer([asyncOne]);
    // Then only the first was begun, the second declined
    expect(await headStarts()).toEqual({ declined: 1 });
    finish();
    await parts.log.append(topics.requestedSync, [first, second]);
    await outcomeOf(second.requestId);
    expect(renderer.jobs.map((j) => (j.source.kind === 'html' ? j.source.html : ''))).toEqual(['<p>first</p>', '<p>second</p>']);
    expect(await headStarts()).toEqual({ declined: 1, taken: 1 });
  });
});
