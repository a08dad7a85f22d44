import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEvent, RenderRequested, StatusViewEntry } from '@pressroom/schemas';
import { AppendNeverSent, DEFAULT_DOOR_LIMITS, evolveStatus, isWithdrawn, logUnavailable, PressroomError } from '@pressroom/domain';
import {
  createEventFactory,
  createFileEventLog,
  createMemoryIdempotencyKeys,
  createMemoryStatusView,
  createPayloadHandoff,
  createStoredPayloads,
  silentLogger,
  systemClock,
  topicNames,
  uuidV7Ids,
  type Catalog,
  type EventFactory,
  type EventLog,
  type PayloadCopies,
  type StatusView,
  type Tenant,
} from '@pressroom/core';
import { createLocalObjectStore } from '@pressroom/local-storage';
import { createRenderRequests } from './render-requests.ts';
import type { SchemaChecker } from './schema-validation/schema-checker.ts';
import type { Templates } from './templates.ts';
import { createWithdrawals } from './withdrawals.ts';
import { waitFor } from '@pressroom/testing';

/** What a worker appends for a request it rendered. */
function succeededFor(event: EventFactory, requested: RenderRequested): LogEvent {
  return event(
    'RenderSucceeded',
    { requestId: requested.requestId, tenantId: requested.tenantId },
    {
      mode: requested.data.mode,
      artifact: { target: { kind: 'default' }, key: `t1/${requested.requestId}.pdf`, contentType: 'application/pdf', bytes: 1024 },
      executionMs: 5,
      worker: 'fast-worker',
    },
  );
}

/**
 * The ingress's deadline in these specs; the withdrawal's verdict gets as long. 300 ms once
 * answered 504 instead of "rendered first" on a busy machine (the withdrawal's append and read took
 * longer than the verdict's time); a second keeps the cases about order, not speed.
 */
const ACCEPT_TIMEOUT_MS = 1_000;
const tenant = { tenantId: 't1', plan: 'standard' } as Tenant;

/** The ingress's render requests on `log`, with the spec's deadline and in-memory keys. */
function renderRequestsOn(
  parts: Pick<Parameters<typeof createRenderRequests>[0], 'log' | 'view' | 'topics' | 'event' | 'withdrawals' | 'payloads'>,
) {
  return createRenderRequests({
    ...parts,
    ids: uuidV7Ids,
    clock: systemClock,
    logger: silentLogger,
    idempotency: createMemoryIdempotencyKeys(systemClock),
    acceptTimeoutMs: ACCEPT_TIMEOUT_MS,
    idempotencyTtlMs: 60_000,
    limits: DEFAULT_DOOR_LIMITS,
    allowPrivateWebhooks: true,
    // An HTML render with no S3 bucket and no data reads no catalog, template or data schema.
    catalog: {} as Catalog,
    templates: {} as Templates,
    schemas: {} as SchemaChecker,
  });
}

/**
 * Issue 8 item 3, the gap the README once left open: the log writes a request before the
 * ingress's deadline but its acknowledgement never reaches the ingress (a broker dying after the
 * write, a cut connection), the ingress answers 503 — and the ingress process dies right after.
 * A refused request must still never be rendered or delivered: its withdrawal must be on the log
 * by the time the caller reads the 503, not appended later by a process that may be gone.
 *
 * Real embedded log on disk; the fault is injected around it: the request's append is written,
 * its acknowledgement lost; the "crash" closes the ingress's withdrawals and its log right after
 * the answer, then a fresh process reads the log.
 */
describe('ingress: a request written in time whose acknowledgement was lost, then the ingress dies after its 503', () => {
  const topics = topicNames('refusal');
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  /**
   * The embedded log with faults around it: the acknowledgement of every request append is lost
   * (the write itself happens); `renderFirst` has a worker's outcome written right after the
   * request (a worker faster than the ingress's deadline); `completedDown` refuses appends to the
   * completed topic (the withdrawal cannot land) while true.
   */
  function faulty(log: EventLog, event: EventFactory, faults: { renderFirst?: boolean; completedDown?: boolean }): EventLog {
    return Object.assign(Object.create(log) as EventLog, {
      append: async (topic: string, events: LogEvent[], opts?: Parameters<EventLog['append']>[2]) => {
        if (topic === topics.completed && faults.completedDown) {
          await new Promise((r) => setTimeout(r, 20));
          throw logUnavailable(new Error('broker unreachable'));
        }
        const written = await log.append(topic, events, opts);
        if (topic !== topics.requestedSync && topic !== topics.requestedAsync) return written;
        for (const e of events) {
          if (faults.renderFirst && e.type === 'RenderRequested') await log.append(topics.completed, [succeededFor(event, e)]);
        }
        return new Promise<never>(() => {}); // acknowledged never
      },
    });
  }

  async function setUp(faults: { renderFirst?: boolean; completedDown?: boolean } = {}) {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-refusal-'));
    dirs.push(dir);
    const real = await createFileEventLog({ dir });
    const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
    const log = faulty(real, event, faults);
    const view = createMemoryStatusView();
    const withdrawals = createWithdrawals({ log, view, topics, event, logger: silentLogger });
    const requests = renderRequestsOn({ log, view, topics, event, withdrawals });
    const readLog = async () => {
      const events: LogEvent[] = [];
      await real.readAll([topics.requestedSync, topics.requestedAsync, topics.completed], (r) => void events.push(r.event));
      return events;
    };
    return { dir, real, view, withdrawals, requests, readLog, faults, close: () => (withdrawals.close(), real.close()) };
  }

  const html = (text: string) => ({ kind: 'html' as const, body: { html: `<p>${text}</p>` } });
  const idsOf = (events: LogEvent[], type: string) =>
    events.filter((e) => e.type === type).map((e) => ('requestId' in e ? e.requestId : ''));

  it('has the withdrawal on the log before the 503 is answered, so nothing renders it after the ingress is gone', async () => {
    const { dir, real, withdrawals, requests } = await setUp();

    // When the request is written, its acknowledgement lost, and the caller answered 503
    const answer = await requests.submit(tenant, 'async', html('refused')).catch((e: unknown) => e);
    expect(answer).toMatchObject({ code: 'LOG_UNAVAILABLE' });
    // ... and the ingress dies at once: nothing it would still do in the background happens
    withdrawals.close();
    await real.close();

    // Then the log (read by the next process) holds the request, written in time, and its withdrawal first of its terminal events
    const reopened = await createFileEventLog({ dir });
    const events: LogEvent[] = [];
    await reopened.readAll([topics.requestedAsync, topics.completed], (r) => void events.push(r.event));
    await reopened.close();
    const requested = events.filter((e) => e.type === 'RenderRequested');
    expect(requested).toHaveLength(1);
    const requestId = 'requestId' in requested[0]! ? requested[0].requestId : '';
    expect(events.filter((e) => e.type === 'RenderWithdrawn' && e.requestId === requestId)).toHaveLength(1);
    // ... so its status is withdrawn (404), the render worker skips it and no webhook is ever sent for it
    let entry: StatusViewEntry | undefined;
    for (const e of events) if ('requestId' in e && e.requestId === requestId) entry = evolveStatus(entry, e);
    expect(isWithdrawn(entry)).toBe(true);
  });

  it('answers as accepted when the render was on the log before the withdrawal (a 503 would be a lie)', async () => {
    // Given a worker faster than the ingress's deadline: the request's outcome precedes its withdrawal
    const t = await setUp({ renderFirst: true });
    // When the request is written, its acknowledgement lost, and the ingress gives up on it
    const answer = await t.requests.submit(tenant, 'sync', html('rendered-anyway'), { idempotencyKey: 'k-a' });
    // Then the caller gets the accepted request and its result, not a 503
    const entry = await t.requests.waitForTerminal(answer.requestId, 5_000);
    expect(entry?.state).toBe('SUCCESS');
    expect((await t.requests.status(tenant, answer.requestId))?.state).toBe('SUCCESS');
    // ... and the log tells the same story: one request, its outcome first, then the withdrawal that lost
    const events = await t.readLog();
    expect(idsOf(events, 'RenderRequested')).toEqual([answer.requestId]);
    const terminal = events.filter((e) => ['RenderSucceeded', 'RenderFailed', 'RenderWithdrawn'].includes(e.type));
    expect(terminal.map((e) => e.type)).toEqual(['RenderSucceeded', 'RenderWithdrawn']);
    // ... and a retry with its Idempotency-Key answers the same request
    expect(await t.requests.submit(tenant, 'sync', html('rendered-anyway'), { idempotencyKey: 'k-a' })).toEqual({
      requestId: answer.requestId,
      replayed: true,
    });
    await t.close();
  });

  it('answers 504 OUTCOME_UNKNOWN, never 503, when the withdrawal cannot reach the log; a retry with the key is safe', async () => {
    // Given a log that wrote the request (acknowledgement lost) and refuses the withdrawal for now
    const t = await setUp({ completedDown: true });
    const answer = await t.requests.submit(tenant, 'async', html('unknown'), { idempotencyKey: 'k-b' }).catch((e: unknown) => e);
    // Then the caller is told the truth: nobody knows yet, with the request's id to look it up
    expect(answer).toMatchObject({ code: 'OUTCOME_UNKNOWN', facts: { requestId: expect.any(String) } });
    const requestId = (answer as PressroomError).facts!.requestId!;
    // ... a retry meanwhile is told the same about the same request (it may run: no second one is started)
    const meanwhile = await t.requests.submit(tenant, 'async', html('unknown'), { idempotencyKey: 'k-b' }).catch((e: unknown) => e);
    expect(meanwhile).toMatchObject({ code: 'OUTCOME_UNKNOWN', facts: { requestId } });
    expect(idsOf(await t.readLog(), 'RenderRequested')).toEqual([requestId]);
    // ... also once the status view saw the request written (pending, not rendered): its withdrawal
    // may still come first, so "accepted" would be a lie (seen under load in the broker-outage e2e)
    const written = (await t.readLog()).find((e) => e.type === 'RenderRequested')!;
    await t.view.apply(written);
    const seen = await t.requests.submit(tenant, 'async', html('unknown'), { idempotencyKey: 'k-b' }).catch((e: unknown) => e);
    expect(seen).toMatchObject({ code: 'OUTCOME_UNKNOWN', facts: { requestId } });
    // When the log takes appends again, the withdrawal lands in the background (first: nothing rendered it)
    t.faults.completedDown = false;
    await waitFor(async () => (await t.readLog()).some((e) => e.type === 'RenderWithdrawn'), {
      timeoutMs: 15_000,
      description: 'withdrawal',
    });
    // Then the status answers 404, and a retry with the key is a new attempt (the key was freed)
    await waitFor(async () => (await t.requests.status(tenant, requestId)) === undefined, { timeoutMs: 5_000, description: '404' });
    const retry = await t.requests.submit(tenant, 'async', html('unknown'), { idempotencyKey: 'k-b' }).catch((e: unknown) => e);
    expect(retry).not.toMatchObject({ requestId });
    const events = await t.readLog();
    expect(idsOf(events, 'RenderSucceeded')).toEqual([]); // at most one render: here none
    expect(idsOf(events, 'RenderWithdrawn')).toContain(requestId);
    await t.close();
  });
});

/**
 * A log the ingress cannot reach at all (a broker that refuses connections): the adapter holds an
 * append until its own bound (acceptTimeoutMs from the append's start), then says it never sent
 * it. When storing the payload used part of the request's time first, the ingress's deadline
 * comes before the adapter's word; it must still answer 503 (nothing taken), not 504. Seen in
 * the distributed e2e under load: the payload's put took longer than the grace the ingress gave
 * the adapter past its own deadline.
 */
describe('ingress: the log never took the request, and storing its payload used part of its time', () => {
  const topics = topicNames('unreachable');
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it('answers 503 LOG_UNAVAILABLE and writes nothing to the log', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-unreachable-'));
    dirs.push(dir);
    const real = await createFileEventLog({ dir: join(dir, 'log') });
    const unreachable: EventLog = Object.assign(Object.create(real) as EventLog, {
      append: async () => {
        await new Promise((r) => setTimeout(r, ACCEPT_TIMEOUT_MS));
        throw logUnavailable(new AppendNeverSent(`append not sent within ${ACCEPT_TIMEOUT_MS} ms`));
      },
    });
    const files = createLocalObjectStore({ dir: join(dir, 'files'), signingSecret: 's', publicBaseUrl: 'http://127.0.0.1' });
    // The put takes most of the request's time (a slow disk, a loaded S3)
    const slowPut = Object.assign(Object.create(files) as typeof files, {
      put: async (key: string, bytes: Uint8Array, contentType: string) => {
        await new Promise((r) => setTimeout(r, ACCEPT_TIMEOUT_MS));
        await files.put(key, bytes, contentType);
      },
    });
    const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
    const view = createMemoryStatusView();
    const withdrawals = createWithdrawals({ log: unreachable, view, topics, event, logger: silentLogger });
    const requests = renderRequestsOn({
      log: unreachable,
      view,
      topics,
      event,
      withdrawals,
      payloads: createStoredPayloads({ own: slowPut }),
    });

    const answer = await requests.submit(tenant, 'async', { kind: 'html', body: { html: '<p>never taken</p>' } }).catch((e: unknown) => e);

    expect(answer).toMatchObject({ code: 'LOG_UNAVAILABLE' });
    const events: LogEvent[] = [];
    await real.readAll(
      Object.values(topics).filter((t) => t !== topics.prefix),
      (r) => void events.push(r.event),
    );
    expect(events).toEqual([]);
    withdrawals.close();
    await real.close();
  });
});

/**
 * The status view is away (Redis restarting) when the log takes a request: the request is
 * accepted all the same. Seen in the Redis-loss e2e with Redis away for three seconds: the
 * ingress answered 503 for requests whose append the log had taken (they rendered, and their
 * webhooks came). A 503 means "not taken"; an answer must not depend on the view once the log
 * has the request.
 */
describe('ingress: the log took the request while the status view was away', () => {
  const topics = topicNames('view-away');
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  async function setUp() {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-view-away-'));
    dirs.push(dir);
    const log = await createFileEventLog({ dir });
    const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
    const real = createMemoryStatusView();
    const state = { away: false };
    // Every read and write fails while away, as the Redis adapter's do (DEPENDENCY_UNAVAILABLE, retryable)
    const unavailable = () => new PressroomError('DEPENDENCY_UNAVAILABLE', 'The status view (Redis) is unavailable.', { retryable: true });
    const guarded =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        if (state.away) throw unavailable();
        return call(...args);
      };
    const view: StatusView = Object.assign(Object.create(real) as StatusView, {
      apply: guarded((e: LogEvent) => real.apply(e as Parameters<StatusView['apply']>[0])),
      get: guarded((id: string) => real.get(id)),
      waitForTerminal: guarded((id: string, ms: number) => real.waitForTerminal(id, ms)),
    });
    const withdrawals = createWithdrawals({ log, view, topics, event, logger: silentLogger });
    const requests = renderRequestsOn({ log, view, topics, event, withdrawals });
    const requestedOnLog = async () => {
      const events: LogEvent[] = [];
      await log.readAll([topics.requestedSync, topics.requestedAsync], (r) => void events.push(r.event));
      return events.filter((e): e is RenderRequested => e.type === 'RenderRequested');
    };
    return { log, event, real, state, requests, requestedOnLog, close: () => (withdrawals.close(), log.close()) };
  }

  it('accepts an async request the log took, answers its status from the ingress until the view has it, then writes it there', async () => {
    const t = await setUp();
    t.state.away = true;
    // When the view is away as the log takes the request
    const answer = await t.requests.submit(tenant, 'async', { kind: 'html', body: { html: '<p>taken</p>' } });
    // Then the caller gets it as accepted, and the log has it
    expect((await t.requestedOnLog()).map((r) => r.requestId)).toEqual([answer.requestId]);
    // ... its status, while the view is away, is "not now" (never a 404)
    await expect(t.requests.status(tenant, answer.requestId)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    // ... and once the view is back, the request is known: ONGOING, then written to the view itself
    t.state.away = false;
    expect((await t.requests.status(tenant, answer.requestId))?.state).toBe('ONGOING');
    await waitFor(async () => (await t.real.get(answer.requestId))?.state === 'ONGOING', {
      timeoutMs: 10_000,
      description: 'the entry written to the view',
    });
    await t.close();
  });

  it('a sync request waits through the outage for its result instead of failing', async () => {
    const t = await setUp();
    t.state.away = true;
    const answer = await t.requests.submit(tenant, 'sync', { kind: 'html', body: { html: '<p>sync</p>' } });
    const waiting = t.requests.waitForTerminal(answer.requestId, 10_000);
    // When the view comes back and the status projector writes the worker's outcome
    await new Promise((r) => setTimeout(r, 400));
    t.state.away = false;
    const [requested] = await t.requestedOnLog();
    await t.real.apply(succeededFor(t.event, requested!) as Parameters<StatusView['apply']>[0]);
    // Then the wait answers the result
    expect((await waiting)?.state).toBe('SUCCESS');
    await t.close();
  });
});

/**
 * Issue 13: when the ingress and its render worker share a process (the standalone service), a
 * request's payload is put into our storage beside its append, not before it: the worker renders
 * from memory while the put finishes, and the answer waits for both. A put that fails after the
 * log took the request must not leave an accepted request without its payload: it is withdrawn and
 * the log decides, as for a lost acknowledgement (503 only when the withdrawal came first).
 * Real embedded log and local storage on disk; the put is held, or failed, around the real one.
 */
describe('ingress: the payload put beside the append (ingress and worker in one process)', () => {
  const topics = topicNames('payload-beside');
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  /** `copies`: the worker is in another process and takes a copy (the distributed profile); else the payload is handed over in memory. */
  async function setUp(faults: { putFails?: boolean; renderFirst?: boolean; copies?: boolean } = {}) {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-payload-beside-'));
    dirs.push(dir);
    const real = await createFileEventLog({ dir: join(dir, 'log') });
    const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
    // A worker faster than the put: the request's outcome is on the log right after the request.
    const log: EventLog = Object.assign(Object.create(real) as EventLog, {
      append: async (topic: string, events: LogEvent[], opts?: Parameters<EventLog['append']>[2]) => {
        const written = await real.append(topic, events, opts);
        for (const e of events)
          if (faults.renderFirst && e.type === 'RenderRequested') await real.append(topics.completed, [succeededFor(event, e)]);
        return written;
      },
    });
    const files = createLocalObjectStore({ dir: join(dir, 'files'), signingSecret: 's', publicBaseUrl: 'http://127.0.0.1' });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const own = Object.assign(Object.create(files) as typeof files, {
      put: async (key: string, bytes: Uint8Array, contentType: string) => {
        await held;
        if (faults.putFails) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        await files.put(key, bytes, contentType);
      },
    });
    const view = createMemoryStatusView();
    const withdrawals = createWithdrawals({ log, view, topics, event, logger: silentLogger });
    const copied = new Map<string, Uint8Array>();
    const copies: PayloadCopies = {
      put: async (key, bytes) => (copied.set(key, bytes), true),
      take: async (key) => copied.get(key),
      remove: async (keys) => keys.forEach((k) => copied.delete(k)),
      close: async () => {},
    };
    const payloads = createStoredPayloads({
      own,
      ...(faults.copies ? { copies } : { handoff: createPayloadHandoff() }),
      sleep: async () => {},
    });
    const requests = renderRequestsOn({ log, view, topics, event, withdrawals, payloads });
    const readLog = async () => {
      const events: LogEvent[] = [];
      await real.readAll([topics.requestedSync, topics.requestedAsync, topics.completed], (r) => void events.push(r.event));
      return events;
    };
    return { files, copied, release, requests, readLog, close: () => (withdrawals.close(), real.close()) };
  }
  const html = (text: string) => ({ kind: 'html' as const, body: { html: `<p>${text}</p>` } });
  const payloadKeyOf = (r: RenderRequested) => (r.data.source.kind === 'stored' ? r.data.source.payload.key : '');

  /**
   * Submits a request whose put is held: it must reach the log (and its worker) before the put
   * ends, with no answer yet; once the put is released, it is answered and its payload is stored.
   */
  async function onTheLogBeforeStored(t: Awaited<ReturnType<typeof setUp>>, mode: 'sync' | 'async', also?: (r: RenderRequested) => void) {
    let answered = false;
    const answer = t.requests.submit(tenant, mode, html(`beside ${mode}`)).then((a) => ((answered = true), a));
    const requested = await waitFor(async () => (await t.readLog()).find((e): e is RenderRequested => e.type === 'RenderRequested'), {
      timeoutMs: 5_000,
      description: 'the request on the log',
    });
    also?.(requested);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    expect(await t.files.size(payloadKeyOf(requested))).toBeUndefined();
    // Once the put ends, the caller gets the request, and its payload is in storage
    t.release();
    expect((await answer).requestId).toBe(requested.requestId);
    expect(await t.files.size(payloadKeyOf(requested))).toBeGreaterThan(0);
    await t.close();
  }

  it('puts the request on the log while its payload is still being stored, and answers once it is stored', async () => {
    await onTheLogBeforeStored(await setUp(), 'async');
  });

  it('with the worker in another process: a sync request is on the log once its copy is written, answered once stored', async () => {
    const t = await setUp({ copies: true });
    await onTheLogBeforeStored(t, 'sync', (requested) => expect(t.copied.has(payloadKeyOf(requested))).toBe(true));
  });

  it('withdraws a request whose payload could not be stored, and answers 503 (not taken)', async () => {
    const t = await setUp({ putFails: true });
    t.release();
    const answer = await t.requests.submit(tenant, 'async', html('no payload')).catch((e: unknown) => e);
    expect(answer).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: true });
    const events = await t.readLog();
    const [requestId] = idsOf(events, 'RenderRequested');
    expect(idsOf(events, 'RenderWithdrawn')).toEqual([requestId]);
    expect(await t.requests.status(tenant, requestId!)).toBeUndefined();
    await t.close();
  });

  it('answers as accepted when the render was on the log before the withdrawal', async () => {
    const t = await setUp({ putFails: true, renderFirst: true });
    t.release();
    const answer = await t.requests.submit(tenant, 'sync', html('rendered first'));
    expect((await t.requests.waitForTerminal(answer.requestId, 5_000))?.state).toBe('SUCCESS');
    const terminal = (await t.readLog()).filter((e) => ['RenderSucceeded', 'RenderFailed', 'RenderWithdrawn'].includes(e.type));
    expect(terminal.map((e) => e.type)).toEqual(['RenderSucceeded', 'RenderWithdrawn']);
    await t.close();
  });

  const idsOf = (events: LogEvent[], type: string) =>
    events.filter((e) => e.type === type).map((e) => ('requestId' in e ? e.requestId : ''));
});
