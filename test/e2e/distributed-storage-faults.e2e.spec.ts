import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { download } from '../support/api-client.ts';
import { isPdf, pdfText } from '../support/pdf-tools.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { runOps } from '../support/ops-cli.ts';
import { s3Client } from '../support/s3.ts';
import type { AppProcess } from '../support/service-process.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

/**
 * Storage faults under load, through a TCP proxy in front of the real S3 server: refused
 * connections (the server is down; it comes back without our bucket, as a restarted S3Proxy
 * with in-memory storage does) and a server that accepts connections and never answers.
 *
 * Shortened but real: the outage lasts OUTAGE_MS instead of a minute, with the retry policy
 * scaled to it (200 ms doubling to 2 s, 25 attempts: 23–46 s of patience) and S3 requests
 * timing out after 2 s instead of 30 s. Each scenario stops by itself (fixed outage, bounded waits).
 */
const OUTAGE_MS = 12_000;
const LOAD = 16;

describe('distributed profile: storage refusing or hanging is waited out, not turned into failures', () => {
  let env: Env;
  let proxy: FaultProxy;
  let worker: AppProcess;
  let apps: AppProcess[];
  const upstream = new URL(inject('S3_ENDPOINT'));

  beforeAll(async () => {
    proxy = await new FaultProxy({ host: upstream.hostname, port: Number(upstream.port) }).start();
    env = await distributedEnv({
      S3_ENDPOINT: proxy.url,
      PRESSROOM_RENDER_RETRY_BASE_MS: '200',
      PRESSROOM_RENDER_RETRY_MAX_MS: '2000',
      PRESSROOM_RENDER_RETRY_MAX_ATTEMPTS: '25',
      PRESSROOM_S3_REQUEST_TIMEOUT_MS: '2000',
      PRESSROOM_RENDER_PAGES: '2',
    });
    const ingress = await env.start('ingress', env.ingressPort);
    apps = [ingress, ...(await Promise.all([env.start('status-projector'), env.start('render-worker')]))];
    worker = apps[2]!;
  });
  afterAll(async () => {
    await env?.stopAll();
    await proxy?.stop();
  });

  /** Submits LOAD async renders, each with its own text, and returns requestId → text. */
  async function submitLoad(label: string): Promise<Map<string, string>> {
    const accepted = new Map<string, string>();
    await Promise.all(
      Array.from({ length: LOAD }, async (_, i) => {
        const text = `${label} number ${i}`;
        const res = await env.api.post('/v1/html-to-pdf/async', { html: `<p>${text}</p>`, webhook: 'http://127.0.0.1:9/unused' });
        expect(res.status, res.text).toBe(200);
        accepted.set(res.json.requestId as string, text);
      }),
    );
    return accepted;
  }

  /** Every accepted request ends SUCCESS, once, with a file that opens and holds its text. */
  async function expectAllSucceeded(accepted: Map<string, string>): Promise<void> {
    for (const [requestId, text] of accepted) {
      const status = await waitFor(
        async () => {
          const s = await env.api.get(`/v1/pdf/status/${requestId}`);
          return s.json?.renderStatus !== 'ONGOING' && s.status === 200 ? s.json : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 300, description: `request ${requestId} to end` },
      );
      expect(status, JSON.stringify(status)).toMatchObject({ renderStatus: 'SUCCESS' });
      const file = await download(status.signedUrl as string);
      expect(file.status).toBe(200);
      expect(isPdf(file.bytes)).toBe(true);
      expect(await pdfText(file.bytes)).toContain(text);
    }
  }

  /** Renders the worker has started so far (its log): the fault is held until the load reaches it. */
  const rendersStarted = () => worker.output.filter((l) => l.includes('"render started"')).length;

  /** The log's events, by request, read with the ops CLI (an audit through Kafka). */
  async function eventTypesByRequest(): Promise<Map<string, string[]>> {
    const out = await runOps(env.env, ['events']);
    expect(out.code, out.stderr).toBe(0);
    const byRequest = new Map<string, string[]>();
    for (const line of out.stdout.trim().split('\n')) {
      const { event } = JSON.parse(line) as { event: { type: string; requestId?: string } };
      if (event.requestId) byRequest.set(event.requestId, [...(byRequest.get(event.requestId) ?? []), event.type]);
    }
    return byRequest;
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
    await proxy.set('refuse');
    const accepted = await submitLoad('refused');
    await waitFor(() => rendersStarted() > 0, { timeoutMs: 60_000, description: 'the load to reach the worker' });
    // The server "restarts" with in-memory storage: our bucket is gone when it is back.
    await deleteBucket(env.env.PRESSROOM_S3_BUCKET!);
    await sleep(OUTAGE_MS);
    await proxy.set('pass');

    await expectAllSucceeded(accepted);
    await expectReadyAgain();
    // Each render's history shows its retries, and no failure.
    const history = await eventTypesByRequest();
    for (const requestId of accepted.keys()) {
      const types = history.get(requestId) ?? [];
      expect(types.filter((t) => t === 'RenderSucceeded')).toHaveLength(1);
      expect(types).not.toContain('RenderFailed');
    }
    expect([...accepted.keys()].some((id) => history.get(id)?.includes('RenderRetryScheduled'))).toBe(true);
    // The worker's log names the cause an operator needs: the refused connection under the S3 error.
    const retries = worker.output
      .filter((l) => l.includes('"storing the file failed; retrying"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ level: 'warn', app: 'render-worker', requestId: expect.any(String), tenantId: 'default' });
    expect(JSON.stringify(retries[0]!.err)).toContain('ECONNREFUSED');
  }, 240_000);

  it('S3 hanging (accepts, never answers): every render succeeds once the server answers again', async () => {
    const before = rendersStarted();
    await proxy.set('hang');
    const accepted = await submitLoad('hung');
    await waitFor(() => rendersStarted() > before, { timeoutMs: 60_000, description: 'the load to reach the worker' });
    await sleep(OUTAGE_MS);
    await proxy.set('pass');

    await expectAllSucceeded(accepted);
    await expectReadyAgain();
  }, 240_000);
});

/** Deletes a bucket and what it holds, on the real server (not through the proxy). */
async function deleteBucket(bucket: string): Promise<void> {
  const client = s3Client(inject('S3_ENDPOINT'));
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (listed.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length > 0) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
    await client.send(new DeleteBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
}
