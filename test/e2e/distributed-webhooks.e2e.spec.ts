import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { download } from '../support/api-client.ts';
import { distributedEnv } from '../support/distributed-service.ts';
import { ledgerWebhookCalls, settleAndCheckLedger, type LedgerSubmission } from '../support/ledger.ts';
import { readLogEvents, runOps } from '../support/ops-cli.ts';
import { ScriptedReceiver, verifyWithStandardWebhooks } from '../support/scripted-receiver.ts';
import type { AppProcess } from '../support/service-process.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

describe('distributed profile: webhook retries, replay and a dispatcher crash, on Kafka and Redis', () => {
  let env: Env;
  let dispatcher: AppProcess;
  let secret: string;
  const receiver = new ScriptedReceiver();

  const deliveries = (requestId: string, until: (view: any) => boolean, description: string) =>
    waitFor(
      async () => {
        const res = await env.api.get(`/v1/pdf/${requestId}/deliveries`);
        return res.status === 200 && until(res.json) ? res.json : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, description },
    );
  const submit = async (webhook: string, text: string) => {
    const res = await env.api.post('/v1/html-to-pdf/async', { html: `<p>${text}</p>`, webhook });
    expect(res.status).toBe(200);
    return res.json.requestId as string;
  };
  /** The log's events of one request, read with the ops CLI (an audit through Kafka). */
  const eventTypes = async (requestId: string) => {
    const out = await runOps(env.env, ['events', '--request', requestId]);
    expect(out.code, out.stderr).toBe(0);
    return out.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string } }).event.type);
  };

  beforeAll(async () => {
    await receiver.start();
    env = await distributedEnv({
      PRESSROOM_WEBHOOK_TIMEOUT_MS: '4000',
      PRESSROOM_WEBHOOK_RETRY_BASE_MS: '300',
      PRESSROOM_WEBHOOK_RETRY_MAX_MS: '2000',
      PRESSROOM_WEBHOOK_MAX_ATTEMPTS: '5',
    });
    await env.start('ingress', env.ingressPort);
    const started = await Promise.all([env.start('webhook-dispatcher'), env.start('status-projector'), env.start('render-worker')]);
    dispatcher = started[0];
    secret = (await env.api.get('/v1/webhooks/secret')).json.secret;
  });
  afterAll(async () => {
    await env?.stopAll();
    await receiver.stop();
  });

  it('retries a 500, delivers with the same webhook-id, and lists every attempt', async () => {
    const requestId = await submit(
      receiver.script('/d-retry', { status: 500 }, { status: 503, headers: { 'retry-after': '1' } }, { status: 200 }),
      'retry',
    );
    const calls = await receiver.waitForCalls('/d-retry', 3);
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    for (const c of calls) expect(verifyWithStandardWebhooks(secret, c)).toMatchObject({ requestId, renderStatus: 'SUCCESS' });
    const view = await deliveries(requestId, (v) => v.state === 'DELIVERED', 'the delivery after two retries');
    expect(view.attempts.map((a: any) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, 500, 'retrying'],
      [2, 503, 'retrying'],
      [3, 200, 'delivered'],
    ]);
    expect(await eventTypes(requestId)).toEqual(
      expect.arrayContaining(['RenderRequested', 'RenderSucceeded', 'WebhookAttempted', 'WebhookDelivered']),
    );
    // The same history through the API, read from Kafka, in order, with the Chromium that rendered.
    const history = await env.api.get(`/v1/pdf/${requestId}/events`);
    expect(history.status).toBe(200);
    expect(history.json).toMatchObject({ requestId, renderStatus: 'SUCCESS' });
    expect(history.json.chromium).toMatch(/^Chromium \d+\./);
    const events = history.json.events as { type: string; data: any }[];
    const shown = events.filter((e) => !e.type.endsWith('AttemptStarted') && e.type !== 'LinkIssued');
    // Each attempt's body carried a fresh link, recorded off the path of the attempt (the last one may still be on its way).
    const links = events.filter((e) => e.type === 'LinkIssued');
    expect(links.length).toBeGreaterThanOrEqual(2);
    expect(new Set(links.map((e) => `${e.data.where}/${e.data.file}`))).toEqual(new Set(['webhook/result']));
    expect(shown.map((e) => [e.type, e.data.statusCode])).toEqual([
      ['RenderRequested', undefined],
      ['RenderSucceeded', undefined],
      ['WebhookAttempted', 500],
      ['WebhookAttempted', 503],
      ['WebhookAttempted', 200],
      ['WebhookDelivered', 200],
    ]);
    const listed = await env.api.get(`/v1/renders?from=${encodeURIComponent(history.json.events[0].occurredAt)}`);
    expect(listed.json.renders[0]).toMatchObject({ requestId, renderStatus: 'SUCCESS', mode: 'async', output: 'pdf' });
  });

  it('replays through the API and the CLI with the same webhook-id, a new signature, and no new render events', async () => {
    const from = new Date().toISOString();
    const requestId = await submit(receiver.script('/d-replay'), 'replay');
    const [original] = await receiver.waitForCalls('/d-replay', 1);
    await deliveries(requestId, (v) => v.state === 'DELIVERED', 'the first delivery');
    const ts = Number(original!.headers['webhook-timestamp']);
    await waitFor(() => Date.now() / 1000 >= ts + 1, { timeoutMs: 3000, description: 'the next second' });

    // Through the API, one request
    const api = await env.api.post('/v1/webhooks/replay', { requestId });
    expect(api.status).toBe(202);
    const [, byApi] = await receiver.waitForCalls('/d-replay', 2);
    // Through the CLI, every result of the tenant in a time range
    const cli = await runOps(env.env, ['webhooks', 'replay', '--tenant', 'default', '--from', from, '--to', new Date().toISOString()]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).requestIds).toContain(requestId);
    const [, , byCli] = await receiver.waitForCalls('/d-replay', 3);

    for (const replayed of [byApi!, byCli!]) {
      expect(replayed.headers['webhook-id']).toBe(original!.headers['webhook-id']);
      expect(Number(replayed.headers['webhook-timestamp'])).toBeGreaterThan(ts);
      expect(replayed.headers['webhook-signature']).not.toBe(original!.headers['webhook-signature']);
      expect(verifyWithStandardWebhooks(secret, replayed)).toMatchObject({ requestId, renderStatus: 'SUCCESS' });
    }
    const view = await deliveries(requestId, (v) => v.round === 2 && v.state === 'DELIVERED', 'both replays to be recorded');
    expect(view.replays.map((r: any) => r.requestedBy)).toEqual(['api', 'ops']);
    const types = await eventTypes(requestId);
    // rendered once (one attempt), replays re-deliver without rendering again
    expect(types.filter((t) => t.startsWith('Render')).sort()).toEqual(['RenderAttemptStarted', 'RenderRequested', 'RenderSucceeded']);
    expect(types.filter((t) => t === 'WebhookReplayRequested')).toHaveLength(2);
  });

  it('rotates the secret through the CLI; both secrets verify during the overlap', async () => {
    const rotated = await runOps(env.env, ['webhooks', 'rotate', '--tenant', 'default']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const secrets = JSON.parse(rotated.stdout);
    expect(secrets.previous.secret).toBe(secret);
    const requestId = await submit(receiver.script('/d-rotated'), 'rotated');
    const [call] = await receiver.waitForCalls('/d-rotated', 1);
    expect(verifyWithStandardWebhooks(secret, call!)).toMatchObject({ requestId });
    expect(verifyWithStandardWebhooks(secrets.secret, call!)).toMatchObject({ requestId });
    secret = secrets.secret;
  });

  it('sends again with the same webhook-id when the dispatcher dies between sending and recording', async () => {
    const tag = `dispatcher-kill-${randomBytes(3).toString('hex')}`;
    const requestId = await submit(receiver.script('/d-crash', { hold: true }, { status: 200 }), tag);
    const [first] = await receiver.waitForCalls('/d-crash', 1);
    await dispatcher.kill(); // the receiver still holds the request: sent, not recorded
    dispatcher = await env.start('webhook-dispatcher');
    const calls = await receiver.waitForCalls('/d-crash', 2, 90_000);
    expect(calls[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verifyWithStandardWebhooks(secret, calls[1]!)).toMatchObject({ requestId, renderStatus: 'SUCCESS' });
    const view = await deliveries(requestId, (v) => v.state === 'DELIVERED', 'the delivery after the crash');
    // Both requests that reached the receiver are on the record: the cut-short one honestly unknown.
    expect(view.attempts.map((a: any) => [a.attempt, a.outcome, a.statusCode])).toEqual([
      [1, 'unknown', undefined],
      [2, 'delivered', 200],
    ]);
    const types = await eventTypes(requestId);
    expect(types.filter((t) => t === 'WebhookAttemptStarted')).toHaveLength(2);
    expect(types.filter((t) => t === 'WebhookAttempted')).toHaveLength(1);

    // And the shared ledger check (issue 8: dispatcher SIGKILL mid-delivery) holds
    const submissions: LedgerSubmission[] = [{ tag, status: 200, requestId, webhookPath: '/d-crash' }];
    const { report } = await settleAndCheckLedger({
      submissions,
      readEvents: () => readLogEvents(env.env),
      settle: { timeoutMs: 30_000, pauseMs: 500 },
      webhookCalls: () => ledgerWebhookCalls(receiver.calls),
      status: (id) => env.api.get(`/v1/pdf/status/${id}`),
      download: async (url) => (await download(url)).bytes,
    });
    expect(report.violations).toEqual([]);
  });
});
