import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '@pressroom/schemas';
import { waitFor } from '@pressroom/testing';
import { download } from '../support/api-client.ts';
import { distributedEnv } from '../support/distributed-service.ts';
import { faultLoad, MIXED } from '../support/fault-load.ts';
import { settleAndCheckLedger, type LedgerSubmission } from '../support/ledger.ts';
import { readLogEvents } from '../support/ops-cli.ts';
import { pdfText } from '../support/pdf-tools.ts';
import { killChromiumOf } from '../support/renderer-host.ts';
import { S3Tap } from '../support/s3-tap.ts';
import { ScriptedReceiver } from '../support/scripted-receiver.ts';
import { AppProcess, freePort } from '../support/service-process.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

const LOAD = 30;

/**
 * Issue 8, distributed profile: the render worker SIGKILLed mid-render and again after a file
 * was stored but before its result event was written, under ~50 mixed renders; and Chromium
 * killed under a render. The worker reaches S3 through a relay (S3Tap) that SIGKILLs it the
 * moment S3 has stored an object, before the worker hears back: the upload-before-event window,
 * hit every time. Afterwards the shared ledger check: every accepted request ends exactly once.
 */
describe('distributed profile: render worker and Chromium killed under load', () => {
  const receiver = new ScriptedReceiver();
  let env: Env;
  let tap: S3Tap;
  const workers: AppProcess[] = [];
  const current = () => workers.at(-1)!;

  /** A render worker whose S3 traffic goes through the tap. */
  async function startWorker(): Promise<AppProcess> {
    const w = new AppProcess('render-worker', { ...env.env, S3_ENDPOINT: tap.url }, await freePort());
    workers.push(w);
    return w.start();
  }

  const readEvents = (): Promise<LogEvent[]> => readLogEvents(env.env);

  async function ledger(load: ReturnType<typeof faultLoad>, timeoutMs: number) {
    return settleAndCheckLedger({
      submissions: load.submissions,
      readEvents,
      settle: { timeoutMs },
      webhookCalls: () => load.webhookCalls(),
      status: (id) => env.api.get(`/v1/pdf/status/${id}`),
      download: async (url) => (await download(url)).bytes,
    });
  }

  beforeAll(async () => {
    await receiver.start();
    env = await distributedEnv({
      PRESSROOM_RENDER_PAGES: '2',
      PRESSROOM_SYNC_TIMEOUT_MS: '10000',
      PRESSROOM_RENDER_TIMEOUT_MS: '20000',
      PRESSROOM_WEBHOOK_RETRY_BASE_MS: '300',
      PRESSROOM_WEBHOOK_RETRY_MAX_MS: '2000',
    });
    tap = await new S3Tap(env.env.S3_ENDPOINT!).start();
    await env.start('ingress', env.ingressPort);
    await Promise.all([env.start('status-projector'), env.start('webhook-dispatcher'), startWorker()]);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await env?.stopAll();
    await tap?.stop();
    await receiver.stop();
  }, 120_000);

  it('retries a render whose Chromium was killed under it, and it succeeds (not FAILED RENDER_ERROR)', async () => {
    const load = faultLoad(env.api, receiver, 'chromium');
    // Given an async render whose page takes 4 s to signal ready: in the renderer for a while
    const sub = await load.send({ mode: 'async', webhook: true, slowMs: 4_000 });
    expect(sub.status).toBe(200);
    const worker = current();
    await worker.waitForLog((l) => l.msg === 'render started' && l.requestId === sub.requestId, 60_000);
    await new Promise((r) => setTimeout(r, 500));

    // When every Chromium process of the worker's renderer host is killed mid-render
    expect(killChromiumOf(worker).length).toBeGreaterThan(0);

    // Then the render is tried again and succeeds, once, with its webhook delivered
    const done = await waitFor(
      async () => {
        const res = await env.api.get(`/v1/pdf/status/${sub.requestId}`);
        return res.json?.renderStatus === 'ONGOING' ? undefined : res.json;
      },
      { timeoutMs: 90_000, intervalMs: 250, description: 'the render to end' },
    );
    expect(done.error).toBeUndefined();
    expect(done.renderStatus).toBe('SUCCESS');
    expect(await pdfText((await download(done.signedUrl)).bytes)).toContain(sub.tag);
    const { report } = await ledger(load, 60_000);
    expect(report.violations).toEqual([]);
  }, 180_000);

  it(`ends each of ${LOAD} mixed renders exactly once across a worker SIGKILL mid-render and one after upload, before the result event`, async () => {
    const load = faultLoad(env.api, receiver, 'worker-kill');
    // Given a render that is surely in progress when the first kill comes, and a mixed load behind it
    const target = await load.send({ mode: 'async', webhook: true, slowMs: 5_000 });
    expect(target.status).toBe(200);
    const inFlight: Promise<LedgerSubmission>[] = [];
    for (let i = 0; i < LOAD - 1; i++) inFlight.push(load.send(MIXED[i % MIXED.length]!));

    // When the worker is SIGKILLed while it renders the slow request
    const first = current();
    await first.waitForLog((l) => l.msg === 'render started' && l.requestId === target.requestId, 90_000);
    await first.kill();

    // ... and its successor is SIGKILLed the moment S3 has stored a file, before it hears back
    const second = await startWorker();
    const stored = new Promise<string>((resolve) =>
      tap.armOnce(async (path) => {
        await second.kill();
        resolve(path);
      }),
    );
    const storedPath = await stored;

    // Then a third worker finishes everything, each request exactly once
    await startWorker();
    const submissions = await Promise.all(inFlight);
    const { events, report } = await ledger(load, 150_000);
    const notRenderedAgain = workers.flatMap((w) => w.output).filter((l) => l.includes('already decided on the log')).length;
    console.info('worker kill ledger', {
      ...report.figures,
      storedPath,
      notRenderedAgain,
      answers: countBy(submissions.map((s) => s.status)),
    });
    expect(report.violations).toEqual([]);

    // The file stored before the kill belongs to a request that was then completed once.
    const storedId = [...new Set(events.map((e) => ('requestId' in e ? e.requestId : '')))].find((id) => id && storedPath.includes(id));
    expect(storedId).toBeDefined();
    expect(events.filter((e) => e.type === 'RenderSucceeded' && e.requestId === storedId)).toHaveLength(1);
    // The slow request was in the first worker when it died: rendered again by a successor.
    expect(first.output.some((l) => l.includes('"render finished"') && l.includes(target.requestId!))).toBe(false);
    expect(report.figures.accepted).toBe(LOAD);
  }, 420_000);
});

function countBy(values: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
