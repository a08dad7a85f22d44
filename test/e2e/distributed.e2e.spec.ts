import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { Redis } from 'ioredis';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { download } from '../support/api-client.ts';
import { isPdf, isPng, pdfText } from '../support/pdf-tools.ts';
import { greetingTemplate, slowHtml } from '../support/fixtures.ts';
import { createBucket, listKeys, s3Credentials } from '../support/s3.ts';
import { startStsServer, type StsServer } from '../support/sts-server.ts';
import { AppProcess, freePort, unlimitedPlans } from '../support/service-process.ts';
import { apiClient } from '../support/api-client.ts';
import { runOps } from '../support/ops-cli.ts';
import { ScriptedReceiver, verifyWithStandardWebhooks } from '../support/scripted-receiver.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

/** Every value currently on the topics, read with one throwaway consumer (one group join). */
async function topicValues(topics: string[]): Promise<Buffer[]> {
  const kafka = new Kafka({ brokers: inject('KAFKA_BROKERS').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  let total = 0;
  for (const topic of topics) total += (await admin.fetchTopicOffsets(topic)).reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `e2e-reader-${Date.now()}-${Math.random()}` });
  const values: Buffer[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value ?? Buffer.alloc(0)) });
  await waitFor(() => values.length >= total, { timeoutMs: 30_000, description: `${total} records of ${topics.join(', ')}` });
  await consumer.disconnect();
  return values;
}

async function statusViewSnapshot(redisUrl: string, prefix: string): Promise<Record<string, unknown>> {
  const redis = new Redis(redisUrl);
  try {
    // The entries; the view's "built" marker is not one.
    const keys = (await redis.keys(`${prefix}status:*`)).filter((k) => k !== `${prefix}status:~built`).sort();
    const values = keys.length ? await redis.mget(keys) : [];
    return Object.fromEntries(keys.map((k, i) => [k, JSON.parse(values[i] ?? 'null') as unknown]));
  } finally {
    redis.disconnect();
  }
}

describe('distributed profile against real Kafka, Schema Registry, Redis, S3 and Chromium', () => {
  let env: Env;
  let workers: AppProcess[];
  const receiver = new WebhookReceiver();
  let templateId: string;
  // Tenant S3 connections with a role assume it here (the ingress for the test write, the workers to write files).
  const role = { roleArn: 'arn:aws:iam::123456789012:role/pressroom-writer', externalId: 'dist-5c1e' };
  let sts: StsServer;

  beforeAll(async () => {
    await receiver.start();
    sts = await startStsServer({ ...role, grants: s3Credentials });
    // Standard files expire after 3 s (the default tenant is on the high plan: its files stay).
    env = await distributedEnv({
      PRESSROOM_SYNC_TIMEOUT_MS: '8000',
      // The render cache for the standard plan only (the default tenant, high, renders everything);
      // standard tenants also get 2 renders in flight, batches of 2 and PNGs of 500,000 pixels;
      // high PNGs stack at most 2 pages.
      PRESSROOM_PLANS: unlimitedPlans({
        standard: { retention: '3s', renderCache: true, concurrentRenders: 2, batchMaxItems: 2, pngMaxPixels: 500_000 },
        high: { pngMaxPages: 2 },
      }),
      PRESSROOM_RETENTION_SWEEP_INTERVAL_MS: '500',
      PRESSROOM_S3_STS_ENDPOINT: sts.url,
      // The service's own identity, with which it assumes a tenant's role (the AWS default chain).
      AWS_ACCESS_KEY_ID: 'service-key',
      AWS_SECRET_ACCESS_KEY: 'service-secret',
    });
    await env.start('ingress', env.ingressPort);
    await Promise.all([env.start('status-projector'), env.start('webhook-dispatcher')]);
    workers = await Promise.all([env.start('render-worker'), env.start('render-worker')]);
    templateId = (await env.api.post('/v1/templates', { name: 'greeting', content: greetingTemplate })).json.templateId;
  });
  afterAll(async () => {
    await env?.stopAll();
    await receiver.stop();
    await sts?.stop();
  });

  /** A new tenant on `plan` and a client with a key of it (both scopes). */
  const tenant = async (tenantId: string, plan: 'standard' | 'high') => {
    expect((await env.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan })).status).toBe(201);
    const key = await env.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'e2e' });
    expect(key.status, key.text).toBe(201);
    return apiClient(`http://127.0.0.1:${env.ingressPort}`, key.json.apiKey as string);
  };

  it('renders sync (PDF and PNG) and async with a webhook, each app in its own process', async () => {
    const sync = await env.api.post('/v1/pdf/sync', { templateId, data: { name: '<i>Dist</i>', items: ['k'] } });
    expect(sync.status).toBe(200);
    expect(Object.keys(sync.json).sort()).toEqual(['metadata', 'signedUrl']);
    const pdf = await download(sync.json.signedUrl);
    expect(pdf.status).toBe(200);
    expect(await pdfText(pdf.bytes)).toContain('Hello <i>Dist</i>');
    expect(new URL(sync.json.signedUrl).searchParams.get('X-Amz-Expires')).toBe('3600');

    const png = await env.api.post('/v1/pdf/sync', { templateId, data: { name: 'P', items: [] }, convertToImage: true });
    expect(new URL(png.json.signedUrl).pathname).toMatch(/\.PNG$/);
    expect(isPng((await download(png.json.signedUrl)).bytes)).toBe(true);

    const accepted = await env.api.post('/v1/html-to-pdf/async', { html: '<p>Distributed async</p>', webhook: receiver.url('/d-async') });
    expect(accepted.status).toBe(200);
    const call = await receiver.waitForCall('/d-async');
    expect(call.body).toMatchObject({ requestId: accepted.json.requestId, renderStatus: 'SUCCESS' });
    expect(await pdfText((await download((call.body as { signedUrl: string }).signedUrl)).bytes)).toContain('Distributed async');
  });

  it('refuses a tampered presigned S3 link', async () => {
    const sync = await env.api.post('/v1/html-to-pdf/sync', { html: '<p>private</p>' });
    const url = new URL(sync.json.signedUrl);
    const sig = url.searchParams.get('X-Amz-Signature')!;
    url.searchParams.set('X-Amz-Signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    const res = await download(url.toString());
    expect(res.status).toBe(403);
    expect(isPdf(res.bytes)).toBe(false);
  });

  it('falls back to 202 and a status URL, then the status shows SUCCESS', async () => {
    const res = await env.api.post('/v1/html-to-pdf/sync', { html: slowHtml(10_000, 'Late distributed') });
    expect(res.status).toBe(202);
    const path = new URL(res.json.statusUrl).pathname;
    expect((await env.api.get(path)).json.renderStatus).toBe('ONGOING');
    const done = await waitFor(
      async () => {
        const s = await env.api.get(path);
        return s.json.renderStatus === 'SUCCESS' ? s : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'the queued render' },
    );
    expect(await pdfText((await download(done.json.signedUrl)).bytes)).toContain('Late distributed');
  });

  it('puts the events on their topics in the Schema Registry wire format', async () => {
    // The registry client with its default options (its own strict ajv), independent of our codec:
    // what an outside reader would write.
    const registry = new SchemaRegistry({ host: inject('SCHEMA_REGISTRY_URL') });
    const accepted = await env.api.post('/v1/pdf/async', {
      templateId,
      data: { name: 'wire', items: [] },
      webhook: receiver.url('/d-wire'),
    });
    await receiver.waitForCall('/d-wire');
    const prefix = env.env.PRESSROOM_TOPIC_PREFIX!;
    const values = await topicValues([`${prefix}.render.requested.async`, `${prefix}.render.completed`, `${prefix}.webhook.events`]);
    for (const value of values) expect(value[0]).toBe(0);
    const decoded = (await Promise.all(values.map((v) => registry.decode(v)))) as { type: string }[];
    const types = new Set(decoded.map((e) => e.type));
    // The events one async render with a delivered webhook writes, one of each type.
    const oneAsyncRender = [
      'LinkIssued',
      'RenderAttemptStarted',
      'RenderRequested',
      'RenderSucceeded',
      'WebhookAttemptStarted',
      'WebhookAttempted',
      'WebhookDelivered',
    ];
    expect([...types].sort()).toEqual(oneAsyncRender);
    // The webhook body's link was recorded (appended before the POST went out, so before its outcome).
    const ours = decoded.filter((e) => (e as { requestId?: string }).requestId === accepted.json.requestId).map((e) => e.type);
    expect(ours.sort()).toEqual(oneAsyncRender);
  });

  it('rebuilds an identical status view from the log after the Redis view is wiped', async () => {
    const prefix = env.env.PRESSROOM_REDIS_PREFIX!;
    // Given a view known to be built: a status read that misses checks the view's "built" marker
    // and, on this stack's fresh Redis, replays the log and sets it. Whether an earlier test's reads
    // happened to miss is not something this test should depend on (without the marker the rebuild
    // has no live view to compare and reports differedBefore: null).
    expect((await env.api.get(`/v1/pdf/status/${randomUUID()}`)).status).toBe(404);
    const before = await statusViewSnapshot(inject('REDIS_URL'), prefix);
    expect(Object.keys(before).length).toBeGreaterThan(3);
    const rebuilt = await runOps(env.env, ['status', 'rebuild']);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const report = JSON.parse(rebuilt.stdout);
    expect(report.eventsApplied).toBeGreaterThan(0);
    // Verified against the log replayed in memory: the live view had not drifted, and matches after.
    expect(report).toMatchObject({ builtBefore: true, differedBefore: 0, differentAfter: 0, verified: true });
    expect(await statusViewSnapshot(inject('REDIS_URL'), prefix)).toEqual(before);
    // The ops CLI opens a whole runtime (registry, topics, bucket) before it reads the log: on two
    // shared cores that alone can take most of a minute.
  }, 120_000);

  it('renders a batch across two workers: items rendered, merged, one signed webhook from the log', async () => {
    const hooks = new ScriptedReceiver();
    await hooks.start();
    try {
      const secret = (await env.api.get('/v1/webhooks/secret')).json.secret as string;
      const good = (await env.api.post('/v1/templates', { name: 'item', content: '<p>Distributed item <%= it.n %></p>' })).json.templateId;
      const broken = (await env.api.post('/v1/templates', { name: 'broken', content: '<p><% throw new Error("broken on purpose") %></p>' }))
        .json.templateId;
      const res = await env.api.post('/v1/pdf/batch', {
        items: [
          { templateId: good, data: { n: 'A' } },
          { templateId: broken, data: {} },
          { templateId: good, data: { n: 'B' } },
        ],
        merge: true,
        webhook: hooks.script('/batch'),
      });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ status: 'PARTIAL_SUCCESS', total: 3, completed: 3, merge: true });
      const merged = await download(res.json.mergedUrl);
      expect(await pdfText(merged.bytes)).toMatch(/Distributed item A[\s\S]*Distributed item B/);
      expect(await pdfText(merged.bytes)).not.toContain('broken');

      const [call] = await hooks.waitForCalls('/batch', 1);
      expect(verifyWithStandardWebhooks(secret, call!)).toMatchObject({
        batchRequestId: res.json.batchRequestId,
        status: 'PARTIAL_SUCCESS',
      });
      expect((await env.api.get(`/v1/pdf/status/${res.json.results[1].requestId}`)).json).toMatchObject({ renderStatus: 'FAILED' });
      expect((await env.api.get(`/v1/pdf/batch/status/${res.json.batchRequestId}`)).json).toMatchObject({
        status: 'PARTIAL_SUCCESS',
        mergedUrl: expect.any(String),
      });

      // The batch is on the log: the webhook came from the dispatcher, a process that learns of a
      // finished batch only from its BatchCompleted on the completed topic.
    } finally {
      await hooks.stop();
    }
  });

  // Issue 11 points 1 and 3 on the distributed profile: what a key's scopes allow, decided by the ingress.
  it('key scopes: a render-only key renders but gets 403 FORBIDDEN on every management route; a manage-only key manages but does not render', async () => {
    const base = `http://127.0.0.1:${env.ingressPort}`;
    // Given a render-only key of the default tenant
    const created = await env.api.post('/v1/keys', { label: 'render-only', scopes: ['render'] });
    expect(created.status, created.text).toBe(201);
    const renderOnly = apiClient(base, created.json.apiKey as string);
    const keyId = created.json.key.keyId as string;

    // Then it renders, through a worker
    const rendered = await renderOnly.post('/v1/html-to-pdf/sync', { html: '<p>render scope</p>' });
    expect(rendered.status, rendered.text).toBe(200);
    expect(await pdfText((await download(rendered.json.signedUrl as string)).bytes)).toContain('render scope');

    // But every management route refuses it, naming the scope, and changes nothing
    for (const res of [
      await renderOnly.get('/v1/keys'),
      await renderOnly.post('/v1/keys', { label: 'escalated' }),
      await renderOnly.post(`/v1/keys/${keyId}/revoke`, {}),
      await renderOnly.post(`/v1/keys/${keyId}/rotate`, {}),
      await renderOnly.get('/v1/s3-connections'),
      await renderOnly.post('/v1/s3-connections', { bucket: 'b', region: 'us-east-1', ...s3Credentials }),
      await renderOnly.del('/v1/s3-connections/anything'),
    ]) {
      expect(res.status, res.text).toBe(403);
      expect(res.json.error).toMatchObject({ code: 'FORBIDDEN', details: [{ field: 'scopes', message: 'must include manage' }] });
    }
    const keys = (await env.api.get('/v1/keys')).json.keys as { keyId: string; label: string; status: string }[];
    expect(keys.find((k) => k.keyId === keyId)?.status).toBe('active');
    expect(keys.some((k) => k.label === 'escalated')).toBe(false);

    // And a manage-only key manages keys but is refused the render routes
    const manage = await env.api.post('/v1/keys', { label: 'manage-only', scopes: ['manage'] });
    const manageOnly = apiClient(base, manage.json.apiKey as string);
    expect((await manageOnly.get('/v1/keys')).status).toBe(200);
    expect((await manageOnly.get('/v1/s3-connections')).status).toBe(200);
    for (const res of [
      await manageOnly.post('/v1/html-to-pdf/sync', { html: '<p>not with this key</p>' }),
      await manageOnly.post('/v1/pdf/sync', { templateId, data: { name: 'x', items: [] } }),
      await manageOnly.get('/v1/templates'),
    ]) {
      expect(res.status, res.text).toBe(403);
      expect(res.json.error).toMatchObject({ code: 'FORBIDDEN', details: [{ field: 'scopes', message: 'must include render' }] });
    }
  });

  it("plan caps: a standard tenant's batch above batchMaxItems is 413 at the ingress, its PNG above pngMaxPixels fails 422 in the worker; a high PNG stacking 3 pages fails naming pngMaxPages", async () => {
    const capped = await tenant('capped', 'standard');
    // A batch of 3 where the plan takes 2: refused before anything is taken, naming the rule
    const batch = await capped.post('/v1/html-to-pdf/batch', { items: [{ html: 'a' }, { html: 'b' }, { html: 'c' }] });
    expect(batch.status, batch.text).toBe(413);
    expect(batch.json.error.code).toBe('PLAN_LIMIT_EXCEEDED');
    expect(batch.json.error.details).toEqual([{ field: 'items', message: "has 3 items; your plan's batchMaxItems is 2" }]);

    // An A4 PNG (about 890,000 pixels) where the plan takes 500,000: the render worker refuses it
    const png = await capped.post('/v1/html-to-pdf/sync', { html: '<p>too many pixels</p>', convertToImage: true });
    expect(png.status, png.text).toBe(422);
    expect(png.json.error.code).toBe('OUTPUT_TOO_LARGE');
    expect(png.json.error.message).toMatch(/500,000/);

    // The default tenant (high: PNGs of at most 2 pages here): 3 stacked A4 sheets fail, 2 render
    const tall = (px: number) => `<div style="height:${px}px">tall</div>`;
    const three = await env.api.post('/v1/html-to-pdf/sync', { html: tall(3000), convertToImage: true });
    expect(three.status, three.text).toBe(422);
    expect(three.json.error.code).toBe('OUTPUT_TOO_LARGE');
    expect(three.json.error.message).toMatch(/would stack 3 pages.*pngMaxPages of 2/);
    const two = await env.api.post('/v1/html-to-pdf/sync', { html: tall(2000), convertToImage: true });
    expect(two.status, two.text).toBe(200);
    expect(isPng((await download(two.json.signedUrl as string)).bytes)).toBe(true);
  });

  it('renders in flight per tenant: past the plan, 429 CONCURRENCY_LIMITED with Retry-After; once a render finished on a worker, the same request is taken', async () => {
    const busy = await tenant('busy', 'standard');
    // Given the standard tenant's 2 renders in flight, on the workers
    const first = await Promise.all(
      [1, 2].map((n) => busy.post('/v1/html-to-pdf/async', { html: slowHtml(3000, `busy ${n}`), webhook: receiver.url(`/d-busy-${n}`) })),
    );
    expect(first.map((r) => r.status)).toEqual([200, 200]);

    // When it asks for a third, async or sync
    const refused = [
      await busy.post('/v1/html-to-pdf/async', { html: '<p>third</p>', webhook: receiver.url('/d-busy-3') }),
      await busy.post('/v1/html-to-pdf/sync', { html: '<p>third</p>' }),
    ];
    // Then it is refused before being taken, naming the rule, with Retry-After
    for (const r of refused) {
      expect(r.status, r.text).toBe(429);
      expect(r.json.error.code).toBe('CONCURRENCY_LIMITED');
      expect(r.json.message).toMatch(/2 renders in progress/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }

    // And after the Retry-After it was told (once a render's outcome reached the status projector), it is taken
    const answers = [];
    for (let i = 0; i < 60; i++) {
      const res = await busy.post('/v1/html-to-pdf/sync', { html: '<p>after the wait</p>' });
      answers.push(res);
      if (res.status !== 429) break;
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after')) * 1000));
    }
    const last = answers.at(-1)!;
    expect(last.status, last.text).toBe(200);
    expect(new URL(last.json.signedUrl as string).pathname).toMatch(/\.pdf$/);
    expect(answers.slice(0, -1).every((a) => a.json.error.code === 'CONCURRENCY_LIMITED')).toBe(true);
    for (const n of [1, 2]) expect((await receiver.waitForCall(`/d-busy-${n}`)).body).toMatchObject({ renderStatus: 'SUCCESS' });
  });

  it('an S3 connection with a role and an external id: a wrong id refused with STS’s reason; the right one assumed by the ingress and the workers; updated (tested again) and deleted', async () => {
    const acme = await tenant('roles', 'high');
    const bucket = `role-${env.run}`;
    await createBucket(env.env.S3_ENDPOINT!, bucket);
    const connection = { bucket, region: 'us-east-1', endpoint: env.env.S3_ENDPOINT!, forcePathStyle: true, ...role };

    // A wrong external id: STS refuses, and so does the registration, with STS's reason
    const wrong = await acme.post('/v1/s3-connections', { ...connection, connectionId: 'wrong', externalId: 'guessed' });
    expect(wrong.status, wrong.text).toBe(422);
    expect(wrong.json.error.code).toBe('S3_CONNECTION_TEST_FAILED');
    expect(wrong.json.error.details[0].message).toMatch(/Not authorized to perform sts:AssumeRole/);
    expect((await acme.get('/v1/s3-connections/wrong')).status).toBe(404);

    // The right one: the ingress assumes the role with the service's own identity and the tenant's external id
    const registered = await acme.post('/v1/s3-connections', { ...connection, connectionId: 'role' });
    expect(registered.status, registered.text).toBe(201);
    expect(registered.json).toMatchObject({ connectionId: 'role', roleArn: role.roleArn, externalId: role.externalId });
    expect(sts.calls).toContainEqual({ ...role, sessionName: 'pressroom', signedBy: 'service-key' });

    // A render to it: a worker (its own process) assumes the role and writes the file into the tenant's bucket
    const rendered = await acme.post('/v1/html-to-pdf/sync', { html: '<p>through a role</p>', s3_bucket: 'role', s3_key: 'out/doc' });
    expect(rendered.status, rendered.text).toBe(200);
    expect(await listKeys(env.env.S3_ENDPOINT!, bucket, 'out/')).toEqual(['out/doc.pdf']);

    // An update is tested again: a wrong external id is refused and changes nothing; a good one is taken
    const broken = await acme.put('/v1/s3-connections/role', { ...connection, externalId: 'guessed' });
    expect(broken.status, broken.text).toBe(422);
    expect((await acme.get('/v1/s3-connections/role')).json.externalId).toBe(role.externalId);
    const updated = await acme.put('/v1/s3-connections/role', { ...connection, region: 'eu-west-1' });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ connectionId: 'role', region: 'eu-west-1', roleArn: role.roleArn });
    expect((await acme.get('/v1/s3-connections')).json.connections).toEqual([expect.objectContaining({ region: 'eu-west-1' })]);

    // Deleted: gone from the listing, and a render naming it is refused
    expect((await acme.del('/v1/s3-connections/role')).status).toBe(204);
    expect((await acme.get('/v1/s3-connections/role')).status).toBe(404);
    const after = await acme.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', s3_bucket: 'role' });
    expect(after.status, after.text).toBe(400);
    expect(after.json.error.details).toEqual([{ field: 's3_bucket', message: 'is not one of your S3 connections' }]);
    // The files already written stay in the tenant's bucket
    expect(await listKeys(env.env.S3_ENDPOINT!, bucket, 'out/')).toEqual(['out/doc.pdf']);
  });

  it('completes a render whose worker is killed mid-render, leaving exactly one file', async () => {
    const res = await env.api.post('/v1/html-to-pdf/async', { html: slowHtml(4000, 'Survives a crash'), webhook: receiver.url('/d-kill') });
    expect(res.status).toBe(200);
    const requestId = res.json.requestId as string;
    const busy = await waitFor(
      async () => {
        for (const w of workers) {
          const line = await w.waitForLog((l) => l.msg === 'render started' && l.requestId === requestId, 100).catch(() => undefined);
          if (line) return w;
        }
        return undefined;
      },
      { timeoutMs: 30_000, description: 'a worker to start the render' },
    );
    await busy.kill();
    const call = await receiver.waitForCall('/d-kill', 90_000);
    expect(call.body).toMatchObject({ requestId, renderStatus: 'SUCCESS' });
    expect(await pdfText((await download((call.body as { signedUrl: string }).signedUrl)).bytes)).toContain('Survives a crash');
    // The render was finished by the other member of the group, after the crash.
    const survivor = workers.find((w) => w !== busy)!;
    const finished = await survivor.waitForLog((l) => l.msg === 'render finished' && l.requestId === requestId);
    expect(finished.outcome).toBe('success');
    const keys = await listKeys(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!, 'default/');
    // One file, beside the request's stored payload (PRESSROOM_PAYLOADS=store): the retry overwrote the same key.
    expect(keys.filter((k) => k.includes(requestId))).toEqual([`default/${requestId}.payload.json`, `default/${requestId}.pdf`]);
  });

  it('answers 503 with Retry-After, and accepts nothing, when the log cannot take the request', async () => {
    const port = await freePort();
    const cut = new AppProcess('ingress', { ...env.env, KAFKA_BROKERS: '127.0.0.1:1', PRESSROOM_KAFKA_APPEND_TIMEOUT_MS: '1500' }, port);
    await cut.start({ until: 'healthz' });
    try {
      const ready = await fetch(`${cut.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'unavailable', checks: { kafka: expect.not.stringMatching(/^ok$/) } });
      const res = await apiClient(cut.url, env.apiKey).post('/v1/html-to-pdf/async', { html: '<p>x</p>', webhook: receiver.url('/d-503') });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.json.error.code).toBe('LOG_UNAVAILABLE');
    } finally {
      await cut.stop();
    }
  });

  it('serves an identical render from the render cache (Redis index, S3 copy), for its own tenant only', async () => {
    // Given a tenant whose plan has the cache, and one of its renders
    expect((await env.admin.post('/admin/v1/tenants', { tenantId: 'cachy', name: 'cachy', plan: 'standard' })).status).toBe(201);
    const key = await env.admin.post('/admin/v1/tenants/cachy/keys', { label: 'e2e' });
    const cachy = apiClient(`http://127.0.0.1:${env.ingressPort}`, key.json.apiKey as string);
    const html = '<h1>cached in Redis</h1>';
    const first = await cachy.post('/v1/html-to-pdf/sync', { html });
    expect(first.status, first.text).toBe(200);
    expect(first.json.metadata.cached).toBeUndefined();

    // When it sends the identical render again (either worker may take it: the index is shared)
    const second = await cachy.post('/v1/html-to-pdf/sync', { html });
    expect(second.status, second.text).toBe(200);

    // Then it is a copy: same bytes, its own object in the bucket
    expect(second.json.metadata.cached).toBe(true);
    const [a, b] = await Promise.all([download(first.json.signedUrl as string), download(second.json.signedUrl as string)]);
    expect(isPdf(a.bytes)).toBe(true);
    expect(Buffer.from(b.bytes).equals(Buffer.from(a.bytes))).toBe(true);
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    expect(ids[0]).not.toBe(ids[1]);
    // And the default tenant (plan without the cache) sending the same input gets its own render
    const other = await env.api.post('/v1/html-to-pdf/sync', { html });
    expect(other.status, other.text).toBe(200);
    expect(other.json.metadata.cached).toBeUndefined();
  });

  it("expires a standard tenant's file from our bucket (status 410 EXPIRED), counts it in usage; a foreign DELETE is 404", async () => {
    // Given a tenant on the standard plan (files kept 3 s here) and one of its renders
    expect((await env.admin.post('/admin/v1/tenants', { tenantId: 'brief', name: 'brief', plan: 'standard' })).status).toBe(201);
    const key = await env.admin.post('/admin/v1/tenants/brief/keys', { label: 'e2e' });
    const brief = apiClient(`http://127.0.0.1:${env.ingressPort}`, key.json.apiKey as string);
    const res = await brief.post('/v1/html-to-pdf/sync', { html: '<p>brief</p>' });
    expect(res.status, res.text).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const file = await download(res.json.signedUrl as string);
    expect(isPdf(file.bytes)).toBe(true);
    // The default tenant cannot delete it: another tenant's render is unknown
    expect((await env.api.del(`/v1/pdf/${requestId}`)).status).toBe(404);
    // Its payload is in our bucket beside the file; the log keeps only its hash and size
    expect(await listKeys(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!, `brief/${requestId}`)).toEqual([
      `brief/${requestId}.payload.json`,
      `brief/${requestId}.pdf`,
    ]);
    const logged = await runOps(env.env, ['events', '--request', requestId]);
    expect(logged.code, logged.stderr).toBe(0);
    expect(logged.stdout).not.toContain('<p>brief</p>');
    const payload = Buffer.from(JSON.stringify({ kind: 'html', html: '<p>brief</p>' }));
    expect(logged.stdout).toContain(createHash('sha256').update(payload).digest('hex'));

    // When its retention has passed, the status projector's sweeper removes it from our bucket
    await waitFor(async () => (await brief.get(`/v1/pdf/status/${requestId}`)).status === 410, {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: 'the file to expire',
    });

    // Then the status says EXPIRED, the file and the payload are gone, and usage still counts the render
    expect((await brief.get(`/v1/pdf/status/${requestId}`)).json.error.code).toBe('EXPIRED');
    expect(await listKeys(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!, 'brief/')).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const usage = await brief.get(`/v1/usage?from=${today}&to=${today}`);
    expect(usage.json.days).toEqual([
      expect.objectContaining({ tenantId: 'brief', renders: { succeeded: 1, failed: 0 }, pages: 1, bytes: file.bytes.byteLength }),
    ]);
    expect(usage.json.days[0].renderSeconds).toBeGreaterThan(0);
    // And the other tenant's usage holds none of brief's renders
    const other = await env.api.get(`/v1/usage?from=${today}&to=${today}`);
    expect(other.status, other.text).toBe(200);
    expect(other.json.days.length).toBeGreaterThan(0);
    expect(other.json.days.every((d: { tenantId: string }) => d.tenantId !== 'brief')).toBe(true);
  });

  it('DELETE removes a render of its own tenant now: 204, file and payload gone from our bucket, ArtifactRemoved DELETED on the log, 410 DELETED; another tenant gets 404', async () => {
    // Given a render of the default tenant (high plan: its files are kept)
    const res = await env.api.post('/v1/html-to-pdf/sync', { html: '<p>doomed</p>' });
    expect(res.status, res.text).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const prefix = (await listKeys(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!)).filter((k) => k.includes(requestId));
    expect(prefix.map((k) => k.slice(k.indexOf('/') + 1)).sort()).toEqual([`${requestId}.payload.json`, `${requestId}.pdf`]);

    // When another tenant deletes it: unknown to it, nothing removed
    expect((await env.admin.post('/admin/v1/tenants', { tenantId: 'intruder', name: 'intruder', plan: 'high' })).status).toBe(201);
    const intruder = apiClient(
      `http://127.0.0.1:${env.ingressPort}`,
      (await env.admin.post('/admin/v1/tenants/intruder/keys', { label: 'e2e' })).json.apiKey as string,
    );
    expect((await intruder.del(`/v1/pdf/${requestId}`)).status).toBe(404);
    expect((await download(res.json.signedUrl as string)).status).toBe(200);

    // When its tenant deletes it
    expect((await env.api.del(`/v1/pdf/${requestId}`)).status).toBe(204);

    // Then the file and the payload are gone from our bucket at once, and the link answers no more
    expect((await listKeys(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!)).filter((k) => k.includes(requestId))).toEqual([]);
    expect((await download(res.json.signedUrl as string)).status).not.toBe(200);
    // And the removal is an event on the log, listing what was removed
    const logged = await runOps(env.env, ['events', '--request', requestId]);
    expect(logged.code, logged.stderr).toBe(0);
    const removed = logged.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string; data: Record<string, unknown> } }).event)
      .filter((e) => e.type === 'ArtifactRemoved');
    expect(removed).toHaveLength(1);
    expect(removed[0]!.data).toMatchObject({ reason: 'DELETED' });
    expect([...(removed[0]!.data.keys as string[])].sort()).toEqual([...prefix].sort());
    // And the status says it was deleted (once the projector has folded the removal)
    await waitFor(async () => (await env.api.get(`/v1/pdf/status/${requestId}`)).status === 410, {
      timeoutMs: 10_000,
      intervalMs: 100,
      description: 'the status to show the removal',
    });
    expect((await env.api.get(`/v1/pdf/status/${requestId}`)).json.error.code).toBe('DELETED');
  });
  it("a sync request's stored payload waits in Redis for its worker, which takes it (read once, then gone) and renders from it; an async one gets no copy", async () => {
    const redis = new Redis(inject('REDIS_URL'));
    const copyKey = (requestId: string) => `${env.env.PRESSROOM_REDIS_PREFIX}payload-copy:default/${requestId}.payload.json`;
    try {
      // Given no render worker running: a sync request waits on its lane, its payload in our bucket and copied in Redis
      await Promise.all(workers.map((w) => w.stop()));
      // (A copy can outlive a request refused after it was made, until it expires: only a new one counts.)
      const copies = () => redis.keys(`${env.env.PRESSROOM_REDIS_PREFIX}payload-copy:default/*`);
      const before = new Set(await copies());
      const answer = env.api.post('/v1/html-to-pdf/sync', { html: '<p>rendered from its copy</p>' });
      const requestId = await waitFor(
        async () => {
          const key = (await copies()).find((k) => !before.has(k));
          return key?.slice(key.lastIndexOf('/') + 1, -'.payload.json'.length);
        },
        { timeoutMs: 5_000, description: 'the copy' },
      );
      expect((await listKeys(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!)).filter((k) => k.includes(requestId))).toEqual([
        `default/${requestId}.payload.json`,
      ]);
      // An async request waiting beside it: stored, never copied
      const queued = await env.api.post('/v1/html-to-pdf/async', { html: '<p>async, no copy</p>', webhook: receiver.url('/d-copy') });
      expect(queued.status, queued.text).toBe(200);
      expect(await redis.exists(copyKey(queued.json.requestId as string))).toBe(0);
      // When a worker starts, it renders the sync request and its copy is gone (taken, not left to expire)
      workers = [await env.start('render-worker')];
      const done = await waitFor(
        async () => {
          const s = await env.api.get(`/v1/pdf/status/${requestId}`);
          return s.json.renderStatus === 'SUCCESS' ? s.json : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, description: 'the sync render to finish' },
      );
      expect(await pdfText((await download(done.signedUrl as string)).bytes)).toContain('rendered from its copy');
      expect(await redis.exists(copyKey(requestId))).toBe(0);
      expect([200, 202]).toContain((await answer).status);
      // And the async one renders from the object
      const call = await receiver.waitForCall('/d-copy', 60_000);
      expect(call.body).toMatchObject({ requestId: queued.json.requestId, renderStatus: 'SUCCESS' });
      expect(await pdfText((await download((call.body as { signedUrl: string }).signedUrl)).bytes)).toContain('async, no copy');
    } finally {
      redis.disconnect();
    }
  });
});
