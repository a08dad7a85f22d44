import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LogEvent } from '@pressroom/schemas';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { download } from '../support/api-client.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { faultLoad, MIXED, type RenderSpec } from '../support/fault-load.ts';
import { checkLedger, ledgerDecided, settleLedger, type LedgerSubmission } from '../support/ledger.ts';
import { readLogEvents } from '../support/ops-cli.ts';
import { deleteBucket } from '../support/s3.ts';
import { ScriptedReceiver } from '../support/scripted-receiver.ts';
import type { AppProcess } from '../support/service-process.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

/**
 * Storage faults under load, through a TCP proxy in front of the real S3 server: refused
 * connections (the server is down; it comes back without our bucket, as a restarted S3Proxy
 * with in-memory storage does) and a server that accepts connections and never answers. After
 * each, the shared ledger check (every accepted request ends exactly once, its file opens, its
 * webhook delivered under one id and on the log), plus: no render failed, readiness recovered.
 *
 * Shortened but real: the outage lasts OUTAGE_MS instead of a minute, with the retry policy
 * scaled to it (200 ms doubling to 2 s, 25 attempts: 23–46 s of patience) and S3 requests
 * timing out after 2 s instead of 30 s: several retries each, whatever the length. Each scenario
 * stops by itself (fixed outage, bounded waits).
 */
const OUTAGE_MS = 8_000;
const LOAD = 8;

describe('distributed profile: storage refusing or hanging is waited out, not turned into failures', () => {
  const receiver = new ScriptedReceiver();
  let env: Env;
  let proxy: FaultProxy;
  let worker: AppProcess;
  let apps: AppProcess[];
  const upstream = new URL(inject('S3_ENDPOINT'));

  beforeAll(async () => {
    await receiver.start();
    proxy = await new FaultProxy({ host: upstream.hostname, port: Number(upstream.port) }).start();
    env = await distributedEnv({
      S3_ENDPOINT: proxy.url,
      PRESSROOM_RENDER_RETRY_BASE_MS: '200',
      PRESSROOM_RENDER_RETRY_MAX_MS: '2000',
      PRESSROOM_RENDER_RETRY_MAX_ATTEMPTS: '25',
      PRESSROOM_S3_REQUEST_TIMEOUT_MS: '2000',
      PRESSROOM_RENDER_PAGES: '2',
      // A sync caller waits out part of the outage, then gets 202 and its result from the status API.
      PRESSROOM_SYNC_TIMEOUT_MS: '5000',
      PRESSROOM_WEBHOOK_RETRY_BASE_MS: '300',
      PRESSROOM_WEBHOOK_RETRY_MAX_MS: '2000',
      // The worker's file write under a storage fault is what this file proves. With stored
      // payloads (the default) the ingress needs our storage to accept a request at all: during
      // the outage it answers 503 DEPENDENCY_UNAVAILABLE (nothing taken; stored-payloads.unit.spec.ts),
      // so no load would reach the worker. Inline payloads keep the ingress on the log alone.
      PRESSROOM_PAYLOADS: 'inline',
    });
    const ingress = await env.start('ingress', env.ingressPort);
    apps = [ingress, ...(await Promise.all([env.start('status-projector'), env.start('render-worker'), env.start('webhook-dispatcher')]))];
    worker = apps[2]!;
  }, 240_000);
  afterAll(async () => {
    await env?.stopAll();
    await proxy?.stop();
    await receiver.stop();
  }, 120_000);

  /** Renders the worker has started so far (its log): the fault is held until the load reaches it. */
  const rendersStarted = () => worker.output.filter((l) => l.includes('"render started"')).length;

  /**
   * Sends LOAD mixed renders (sync and async with webhooks, PDF and PNG) into a storage fault held
   * for OUTAGE_MS once the load reaches the worker, then settles and checks the ledger; every
   * accepted request must have succeeded, some after a retry.
   */
  async function underFault(label: string, mode: 'refuse' | 'hang', meanwhile?: () => Promise<void>): Promise<void> {
    const load = faultLoad(env.api, receiver, label);
    const before = rendersStarted();
    await proxy.set(mode);
    const inFlight: Promise<LedgerSubmission>[] = [];
    for (let i = 0; i < LOAD; i++) inFlight.push(load.send(MIXED[i % MIXED.length] as RenderSpec));
    await waitFor(() => rendersStarted() > before, { timeoutMs: 60_000, description: 'the load to reach the worker' });
    await meanwhile?.();
    await sleep(OUTAGE_MS);
    await proxy.set('pass');
    const answers = await Promise.all(inFlight);
    expect(answers.map((a) => a.status).filter((s) => s !== 200 && s !== 202)).toEqual([]);

    // Waited for through the API (cheap to poll), then the log is read once; no request was refused,
    // so there is no late write to wait out (settleLedger reads again only if the log is not decided yet).
    await waitFor(
      async () => {
        for (const a of answers) {
          if ((await env.api.get(`/v1/pdf/status/${a.requestId}`)).json?.renderStatus === 'ONGOING') return false;
        }
        return answers.every((a) => !a.webhookPath || receiver.calls.some((c) => c.path === a.webhookPath));
      },
      { timeoutMs: 120_000, intervalMs: 500, description: 'every render to end and its webhook to arrive' },
    );
    const first = await readLogEvents(env.env);
    const events = ledgerDecided(load.submissions, first)
      ? first
      : await settleLedger(load.submissions, () => readLogEvents(env.env), { timeoutMs: 120_000 });
    const report = await checkLedger({
      submissions: load.submissions,
      events,
      webhookCalls: load.webhookCalls(),
      status: (id) => env.api.get(`/v1/pdf/status/${id}`),
      download: async (url) => (await download(url)).bytes,
    });
    const ids = new Set(answers.map((a) => a.requestId));
    const mine = events.filter((e): e is LogEvent & { requestId: string } => 'requestId' in e && ids.has(e.requestId));
    const count = (type: string) => mine.filter((e) => e.type === type).length;
    console.info(`storage ${label} ledger`, { ...report.figures, retries: count('RenderRetryScheduled') });
    expect(report.violations).toEqual([]);
    // Transient, so never final: every render succeeded, and the history shows the retries.
    expect(count('RenderFailed')).toBe(0);
    expect(count('RenderSucceeded')).toBe(LOAD);
    expect(count('RenderRetryScheduled')).toBeGreaterThan(0);
    await expectReadyAgain();
  }

  async function expectReadyAgain(): Promise<void> {
    for (const app of apps) {
      await waitFor(async () => (await fetch(`${app.url}/readyz`)).status === 200, {
        timeoutMs: 30_000,
        intervalMs: 250,
        description: `${app.app} to be ready again`,
      });
    }
  }

  it('S3 refusing connections, then back without our bucket: every render succeeds, readiness recovers by itself', async () => {
    // The server "restarts" with in-memory storage: our bucket is gone when it is back.
    await underFault('refused', 'refuse', () => deleteBucket(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!));
    // The worker's log names the cause an operator needs: the refused connection under the S3 error.
    const retries = worker.output
      .filter((l) => l.includes('"storing the file failed; retrying"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ level: 'warn', app: 'render-worker', requestId: expect.any(String), tenantId: 'default' });
    expect(JSON.stringify(retries[0]!.err)).toContain('ECONNREFUSED');
  }, 240_000);

  it('S3 hanging (accepts, never answers): every render succeeds once the server answers again', async () => {
    await underFault('hung', 'hang');
  }, 240_000);
});
