import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { PrivateRedis } from '../support/private-redis.ts';
import { ScriptedReceiver, verifyWithStandardWebhooks } from '../support/scripted-receiver.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;
type Answer = { what: string; status: number; body: string };

/**
 * Issue 8 point 1: Redis is a view of the log. A FLUSHALL, or a restart of a Redis without
 * persistence, under load: no valid key is refused (401), no accepted request is unknown
 * (404), the webhook signing secret stays the same (signatures verify with the secret read
 * before), and the views come back without any operator step.
 */
describe('distributed profile: Redis loses its data under load', () => {
  const redis = new PrivateRedis();
  const receiver = new ScriptedReceiver();
  let env: Env;
  let tenant: ApiClient;
  let secret: string;
  let templateId: string;
  const accepted: string[] = [];

  beforeAll(async () => {
    await redis.start();
    await receiver.start();
    env = await distributedEnv({ REDIS_URL: redis.url, PRESSROOM_SYNC_TIMEOUT_MS: '20000' });
    await env.start('ingress', env.ingressPort);
    await Promise.all([env.start('status-projector'), env.start('webhook-dispatcher'), env.start('render-worker')]);
    // A tenant of the operator's, with its own key, a template and a signing secret
    const created = await env.admin.post('/admin/v1/tenants', { name: 'Acme', plan: 'high' });
    expect(created.status).toBe(201);
    const key = await env.admin.post(`/admin/v1/tenants/${created.json.tenantId}/keys`, { label: 'load' });
    expect(key.status).toBe(201);
    tenant = apiClient(`http://127.0.0.1:${env.ingressPort}`, key.json.apiKey);
    secret = (await tenant.get('/v1/webhooks/secret')).json.secret;
    templateId = (await tenant.post('/v1/templates', { name: 'g', content: '<p>Hello <%= it.name %></p>' })).json.templateId;
    expect(templateId).toMatch(/^tpl_/);
  });
  afterAll(async () => {
    await env?.stopAll();
    await receiver.stop();
    await redis.dispose();
  });

  /** Submits renders and reads statuses, templates and the secret, with both keys, until `stop`. */
  function load() {
    const answers: Answer[] = [];
    let running = true;
    const record = async (what: string, call: Promise<{ status: number; text: string }>) => {
      const r = await call.catch((e: Error) => ({ status: 0, text: e.message }));
      answers.push({ what, status: r.status, body: r.text });
      return r;
    };
    // Three callers at once, each submitting a render and then reading a status, the template and a list.
    const lane = async (lane: number) => {
      for (let i = 0; running; i++) {
        const id = accepted[(i * 7 + lane) % Math.max(1, accepted.length)];
        const submitted = await record(
          'submit',
          tenant.post('/v1/html-to-pdf/async', { html: `<p>load ${lane}.${i}</p>`, webhook: receiver.url(`/load`) }),
        );
        if (submitted.status === 200) accepted.push(JSON.parse(submitted.text).requestId);
        await Promise.all([
          id ? record('status', tenant.get(`/v1/pdf/status/${id}`)) : undefined,
          record('template', tenant.get(`/v1/templates/${templateId}`)),
          record('default key', env.api.get('/v1/templates')),
        ]);
      }
    };
    const loop = Promise.all([0, 1, 2].map(lane));
    return {
      answers,
      async stop() {
        running = false;
        await loop;
      },
    };
  }

  const refusedOrUnknown = (answers: Answer[]) => answers.filter((a) => a.status === 401 || a.status === 404);
  /** Anything but a success or an honest "not now" (503 with nothing taken) is a defect. */
  const neitherOkNorUnavailable = (answers: Answer[]) => answers.filter((a) => a.status !== 200 && a.status !== 503);

  async function checkSecretAndWebhooks(path: string) {
    // The signing secret is the one read before Redis lost its data
    const now = await tenant.get('/v1/webhooks/secret');
    expect(now.status).toBe(200);
    expect(now.json.secret).toBe(secret);
    // And a webhook delivered now verifies with it
    const res = await tenant.post('/v1/html-to-pdf/async', { html: '<p>after</p>', webhook: receiver.url(path) });
    expect(res.status).toBe(200);
    const call = await waitFor(() => receiver.calls.find((c) => c.path === path), { timeoutMs: 60_000, description: `webhook ${path}` });
    expect(verifyWithStandardWebhooks(secret, call)).toMatchObject({ requestId: res.json.requestId, renderStatus: 'SUCCESS' });
  }

  it('FLUSHALL under load: no 401, no 404 for accepted requests, same webhook secret, views back without an operator', async () => {
    const running = load();
    await waitFor(() => accepted.length >= 40, { timeoutMs: 120_000, description: '40 accepted requests' });
    await redis.flushAll();
    const flushedAt = running.answers.length;
    await waitFor(() => running.answers.length >= flushedAt + 200, { timeoutMs: 120_000, description: '200 answers after the flush' });
    await running.stop();
    expect(refusedOrUnknown(running.answers)).toEqual([]);
    expect(neitherOkNorUnavailable(running.answers)).toEqual([]);
    process.stdout.write(
      `redis-loss e2e: FLUSHALL after ${flushedAt} answers, ${running.answers.length} in all, ${accepted.length} accepted\n`,
    );
    expect(running.answers.filter((a) => a.what === 'status' && a.status === 200).length).toBeGreaterThan(10);
    // Every accepted request is known, and finishes
    for (const id of accepted) {
      const done = await waitFor(
        async () => {
          const s = await tenant.get(`/v1/pdf/status/${id}`);
          expect(s.status).toBe(200);
          return s.json.renderStatus !== 'ONGOING' ? s.json : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 200, description: `request ${id} to finish` },
      );
      expect(done.renderStatus).toBe('SUCCESS');
    }
    await checkSecretAndWebhooks('/after-flush');
  });

  it('a restart of the Redis without persistence under load: nothing refused or unknown, same secret', async () => {
    const running = load();
    await waitFor(() => running.answers.length >= 30, { timeoutMs: 60_000, description: '30 answers before the restart' });
    await redis.stop();
    await redis.start();
    const restartedAt = running.answers.length;
    await waitFor(() => running.answers.length >= restartedAt + 200, { timeoutMs: 120_000, description: '200 answers after the restart' });
    await running.stop();
    process.stdout.write(
      `redis-loss e2e: restart after ${restartedAt} answers, ${running.answers.length} in all, ` +
        `${running.answers.filter((a) => a.status === 503).length} answered 503\n`,
    );
    expect(refusedOrUnknown(running.answers)).toEqual([]);
    expect(neitherOkNorUnavailable(running.answers)).toEqual([]);
    expect((await tenant.get(`/v1/templates/${templateId}`)).status).toBe(200);
    await checkSecretAndWebhooks('/after-restart');
  });
});
