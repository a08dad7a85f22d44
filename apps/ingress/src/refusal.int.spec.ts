import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEvent, StatusViewEntry } from '@pressroom/schemas';
import { DEFAULT_DOOR_LIMITS, evolveStatus, isWithdrawn } from '@pressroom/domain';
import {
  createEventFactory,
  createFileEventLog,
  createMemoryIdempotencyKeys,
  createMemoryStatusView,
  silentLogger,
  systemClock,
  topicNames,
  uuidV7Ids,
  type Catalog,
  type EventLog,
  type Tenant,
} from '@pressroom/core';
import { createRenderRequests } from './render-requests.ts';
import type { SchemaChecker } from './schema-validation/schema-checker.ts';
import type { Templates } from './templates.ts';
import { createWithdrawals } from './withdrawals.ts';

const ACCEPT_TIMEOUT_MS = 300;

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

  /** The embedded log, with the acknowledgement of every request append lost (the write itself happens). */
  function ackLost(log: EventLog): EventLog {
    return Object.assign(Object.create(log) as EventLog, {
      append: (topic: string, events: LogEvent[], opts?: Parameters<EventLog['append']>[2]) => {
        const written = log.append(topic, events, opts);
        if (topic !== topics.requestedSync && topic !== topics.requestedAsync) return written;
        return written.then(() => new Promise<void>(() => {})); // acknowledged never
      },
    });
  }

  it('has the withdrawal on the log before the 503 is answered, so nothing renders it after the ingress is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-refusal-'));
    dirs.push(dir);
    const real = await createFileEventLog({ dir });
    const log = ackLost(real);
    const view = createMemoryStatusView();
    const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
    const withdrawals = createWithdrawals({ log, view, topics, event, logger: silentLogger });
    const requests = createRenderRequests({
      log,
      view,
      topics,
      event,
      ids: uuidV7Ids,
      clock: systemClock,
      logger: silentLogger,
      withdrawals,
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
    const tenant = { tenantId: 't1', plan: 'standard' } as Tenant;

    // When the request is written, its acknowledgement lost, and the caller answered 503
    const answer = await requests.submit(tenant, 'async', { kind: 'html', body: { html: '<p>refused</p>' } }).catch((e: unknown) => e);
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
});
