import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedEnv } from '../support/distributed-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { waitFor } from '@pressroom/testing';
import { runOps } from '../support/ops-cli.ts';
import { createBucket, listKeys } from '../support/s3.ts';
import { startReadOnlyS3 } from '../support/read-only-s3.ts';
import { AppProcess, freePort } from '../support/service-process.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

/**
 * Issue 8 point 2: a template revision is decided against the log. Two ingress processes
 * revising one template at the same moment must not both write "version n": one answers
 * 200, the other 409 in the one error shape, and the versions stay dense and unique.
 */
describe('distributed profile: two ingress processes (concurrent template revisions; keys and S3 connections)', () => {
  let env: Env;
  let second: AppProcess;
  let a: ApiClient;
  let b: ApiClient;

  beforeAll(async () => {
    // The standard plan tiny, for the quota cases below (the default tenant is on high): a burst
    // of 5, then one request every 4 s.
    env = await distributedEnv({
      PRESSROOM_PLANS: JSON.stringify({ standard: { requestsPerSecond: 0.25, burst: 5, concurrentRenders: 2 } }),
      // No render worker runs here: async requests stay in the backlog, which closes at 4 (the last test).
      PRESSROOM_ASYNC_BACKLOG_MAX: '4',
      PRESSROOM_BACKLOG_REFRESH_MS: '100',
      PRESSROOM_SYNC_TIMEOUT_MS: '1500',
    });
    await env.start('ingress', env.ingressPort);
    second = await env.start('ingress');
    a = env.api;
    b = apiClient(second.url, env.apiKey);
  });
  afterAll(async () => {
    await env?.stopAll();
  });

  /** The template versions on the log, in log order (ops events). */
  const versionsOnLog = async (id: string) => {
    const events = await runOps(env.env, ['events', '--request', id]);
    expect(events.code, events.stderr).toBe(0);
    return events.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { data: { templateVersion: number } } }).event.data.templateVersion);
  };
  const dense = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('two revisions of the version both read (If-Match): one 200, one 409, each round', async () => {
    const created = await a.post('/v1/templates', { name: 'race', content: '<p>v1</p>' });
    expect(created.status).toBe(201);
    const id = created.json.templateId as string;
    const rounds = 5;
    for (let round = 1; round <= rounds; round++) {
      // Given both editors read the same version
      const read = await b.get(`/v1/templates/${id}`);
      const ifMatch = { 'if-match': `"${read.json.version}"` };
      // When both processes write their revision of it at once
      const [ra, rb] = await Promise.all([
        a.call('PUT', `/v1/templates/${id}`, { name: 'race', content: `<p>a${round}</p>` }, ifMatch),
        b.call('PUT', `/v1/templates/${id}`, { name: 'race', content: `<p>b${round}</p>` }, ifMatch),
      ]);
      // Then exactly one wrote the next version and the other was told it lost
      expect([ra.status, rb.status].sort(), `round ${round}: ${ra.text} / ${rb.text}`).toEqual([200, 409]);
      const [won, lost] = ra.status === 200 ? [ra, rb] : [rb, ra];
      expect(won.json.version).toBe(round + 1);
      expect(Object.keys(lost.json).sort()).toEqual(['error', 'message']);
      expect(lost.json.error.code).toBe('CONFLICT');
      expect((await a.get(`/v1/templates/${id}`)).json.content).toBe(won.json.content);
    }
    const versions = await b.get(`/v1/templates/${id}/versions`);
    expect(versions.json.versions.map((v: { version: number }) => v.version)).toEqual(dense(rounds + 1));
    expect(await versionsOnLog(id)).toEqual(dense(rounds + 1));
  });

  it('a burst of revisions through both processes: every 200 is its own version, the rest 409, none lost', async () => {
    const created = await a.post('/v1/templates', { name: 'burst', content: '<p>v1</p>' });
    const id = created.json.templateId as string;
    // When eight revisions (four per process) arrive at once, without If-Match
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).put(`/v1/templates/${id}`, { name: 'burst', content: `<p>r${i}</p>` })),
    );
    // Then each answer is 200 or 409; the 200s hold distinct versions 2..n+1, and each is on the log once
    expect(
      answers.every((r) => r.status === 200 || r.status === 409),
      answers.map((r) => r.text).join('\n'),
    ).toBe(true);
    const won = answers.filter((r) => r.status === 200).map((r) => r.json.version as number);
    expect(won.length).toBeGreaterThan(0);
    expect([...won].sort((x, y) => x - y)).toEqual(dense(won.length + 1).slice(1));
    for (const r of answers.filter((x) => x.status === 409)) expect(r.json.error.code).toBe('CONFLICT');
    expect(await versionsOnLog(id)).toEqual(dense(won.length + 1));
    // And every written version shows the content of the request that was told it won
    for (const r of answers.filter((x) => x.status === 200)) {
      expect((await a.get(`/v1/templates/${id}/versions/${r.json.version}`)).json.content).toBe(r.json.content);
    }
  });

  /**
   * Issue 11 point 3: limits hold across ingress processes (Redis). A standard tenant (5 requests
   * per key at once, 2 renders in flight) spends them alternately through both processes.
   */
  describe('plan quotas shared by both ingress processes', () => {
    let small: { a: ApiClient; b: ApiClient };
    beforeAll(async () => {
      expect((await env.admin.post('/admin/v1/tenants', { tenantId: 'small', name: 'small', plan: 'standard' })).status).toBe(201);
      const keyOf = async () => (await env.admin.post('/admin/v1/tenants/small/keys', { label: 'e2e' })).json.apiKey as string;
      const k = await keyOf();
      small = { a: apiClient(`http://127.0.0.1:${env.ingressPort}`, k), b: apiClient(second.url, k) };
    });

    it('one rate bucket per key: the burst is shared, the RateLimit header counts down across processes, then 429, then 200 after Retry-After', async () => {
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await (i % 2 ? small.b : small.a).get('/v1/templates'));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(answers.map((r) => /r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1])).toEqual(['4', '3', '2', '1', '0', '0']);
      // The IETF draft's structured fields, on the refusal too
      expect(answers[0]!.headers.get('ratelimit-policy')).toBe('"per-key";q=5;w=20');
      expect(answers[5]!.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
      expect(answers[5]!.json.error.code).toBe('RATE_LIMITED');
      const retryAfter = Number(answers[5]!.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(4);
      // Recovery: after the Retry-After it was told, the key is served again, by the other process
      await new Promise((r) => setTimeout(r, retryAfter * 1000));
      const again = await small.a.get('/v1/templates');
      expect(again.status, again.text).toBe(200);
      expect(again.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
    });

    it('renders in flight per tenant are counted over both processes: the third gets 429 CONCURRENCY_LIMITED', async () => {
      // (no render worker runs here: accepted renders stay in flight)
      const k = (await env.admin.post('/admin/v1/tenants/small/keys', { label: 'e2e-2' })).json.apiKey as string;
      const a = apiClient(`http://127.0.0.1:${env.ingressPort}`, k);
      const b = apiClient(second.url, k);
      const webhook = 'http://127.0.0.1:9/never-called';
      expect((await a.post('/v1/html-to-pdf/async', { html: '<p>1</p>', webhook })).status).toBe(200);
      expect((await b.post('/v1/html-to-pdf/async', { html: '<p>2</p>', webhook })).status).toBe(200);
      const third = await a.post('/v1/html-to-pdf/async', { html: '<p>3</p>', webhook });
      expect(third.status).toBe(429);
      expect(third.json.error.code).toBe('CONCURRENCY_LIMITED');
    });
  });

  // Issue 11 on the same two ingress processes (one catalog view in Redis, no auth cache):
  // a key revoked through one is refused by the other at once; a rotated key works on both
  // during its overlap; another tenant's key and connection ids answer like unknown ones.
  it('keys and S3 connections across two ingress processes and two tenants', async () => {
    const keyOf = async (tenantId: string) => {
      expect((await env.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan: 'high' })).status).toBe(201);
      return (await env.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'owner' })).json.apiKey as string;
    };
    const [acmeKey, globexKey] = [await keyOf(`acme-${env.run}`), await keyOf(`globex-${env.run}`)];
    const acme = { a: apiClient(`http://127.0.0.1:${env.ingressPort}`, acmeKey), b: apiClient(second.url, acmeKey) };
    const globexB = apiClient(second.url, globexKey);

    // A key created and revoked through ingress A is refused by ingress B from the next request
    const created = await acme.a.post('/v1/keys', { label: 'short-lived' });
    expect(created.status, created.text).toBe(201);
    const shortLived = apiClient(second.url, created.json.apiKey as string);
    expect((await shortLived.get('/v1/templates')).status).toBe(200);
    expect((await acme.a.post(`/v1/keys/${created.json.key.keyId}/revoke`, {})).status).toBe(200);
    expect((await shortLived.get('/v1/templates')).status).toBe(401);

    // A key rotated through B: the old and the new key work on A during the overlap
    const toRotate = await acme.a.post('/v1/keys', {});
    const rotated = await acme.b.post(`/v1/keys/${toRotate.json.key.keyId}/rotate`, { overlapSeconds: 3600 });
    expect(rotated.status, rotated.text).toBe(201);
    expect((await apiClient(`http://127.0.0.1:${env.ingressPort}`, rotated.json.apiKey as string).get('/v1/keys')).status).toBe(200);
    expect((await apiClient(`http://127.0.0.1:${env.ingressPort}`, toRotate.json.apiKey as string).get('/v1/keys')).status).toBe(200);

    // Another tenant's ids answer like unknown ones, through either process
    const foreign = await globexB.post(`/v1/keys/${created.json.key.keyId}/revoke`, {});
    const unknown = await globexB.post('/v1/keys/key_0000/revoke', {});
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    expect(foreign.json.error.code).toBe(unknown.json.error.code);
    const bucket = `conn-${env.run}`;
    await createBucket(env.env.S3_ENDPOINT!, bucket);
    const registered = await acme.a.post('/v1/s3-connections', {
      connectionId: 'archive',
      bucket,
      region: 'us-east-1',
      endpoint: env.env.S3_ENDPOINT,
      forcePathStyle: true,
      accessKeyId: env.env.S3_ACCESS_KEY_ID,
      secretAccessKey: env.env.S3_SECRET_ACCESS_KEY,
    });
    expect(registered.status, registered.text).toBe(201);
    expect((await acme.b.get('/v1/s3-connections/archive')).status).toBe(200);
    expect((await globexB.get('/v1/s3-connections/archive')).status).toBe(404);
    expect((await globexB.del('/v1/s3-connections/archive')).status).toBe(404);
    // The test write left nothing in the tenant's bucket
    expect(await listKeys(env.env.S3_ENDPOINT!, bucket)).toEqual([]);
  });

  it('refuses a connection to a bucket that refuses writes, with the storage reason, on either process', async () => {
    // Given a bucket that exists and reads, with valid credentials, whose writes are denied
    const bucket = `read-only-${env.run}`;
    await createBucket(env.env.S3_ENDPOINT!, bucket);
    const readOnly = await startReadOnlyS3(env.env.S3_ENDPOINT!);
    try {
      const connection = {
        connectionId: 'read-only',
        bucket,
        region: 'us-east-1',
        endpoint: readOnly.url,
        forcePathStyle: true,
        accessKeyId: env.env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.env.S3_SECRET_ACCESS_KEY,
      };
      // When the tenant registers it, through B
      const res = await b.post('/v1/s3-connections', connection);

      // Then the test write is refused: 422 naming the storage's reason, and nothing is registered
      expect(res.status, res.text).toBe(422);
      expect(res.json.error.code).toBe('S3_CONNECTION_TEST_FAILED');
      expect(res.json.error.details[0].message).toMatch(/AccessDenied|Access Denied/);
      expect(readOnly.writesRefused.length).toBeGreaterThan(0);
      expect((await a.get('/v1/s3-connections/read-only')).status).toBe(404);
      expect(res.text).not.toContain(env.env.S3_SECRET_ACCESS_KEY!);
    } finally {
      await readOnly.close();
    }
  });

  it('refuses a connection to a private, loopback or metadata endpoint on an ingress whose operator has not opened them', async () => {
    // Given a third ingress on the same log and Redis, with PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS off
    const closed = await new AppProcess('ingress', { ...env.env, PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS: 'false' }, await freePort()).start();
    try {
      const api = apiClient(closed.url, env.apiKey);
      const connection = {
        bucket: `conn-${env.run}`,
        region: 'us-east-1',
        forcePathStyle: true,
        accessKeyId: env.env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.env.S3_SECRET_ACCESS_KEY,
      };
      // When a connection names the (working) S3 server on loopback, a private address or the metadata service
      for (const [connectionId, endpoint] of [
        ['loopback', env.env.S3_ENDPOINT!],
        ['private', 'http://10.1.2.3:9000'],
        ['metadata', 'http://169.254.169.254/'],
      ] as const) {
        const res = await api.post('/v1/s3-connections', { ...connection, connectionId, endpoint });
        // Then it is refused before any write, naming the endpoint, and nothing is registered
        expect(res.status, `${connectionId}: ${res.text}`).toBe(400);
        expect(res.json.error.details[0]).toMatchObject({ field: 'endpoint' });
        expect((await api.get(`/v1/s3-connections/${connectionId}`)).status).toBe(404);
      }
      // While the metadata endpoint is refused even where private endpoints are allowed
      const metadata = await a.post('/v1/s3-connections', { ...connection, connectionId: 'metadata', endpoint: 'http://169.254.169.254/' });
      expect(metadata.status).toBe(400);
    } finally {
      await closed.stop();
    }
  });

  it('custom S3 is for the high plan: a standard tenant gets 403 PLAN_FORBIDS_CUSTOM_S3 on either process until the operator changes its plan through one', async () => {
    // Given a standard tenant and a working bucket
    const tenantId = `plain-${env.run}`;
    expect((await env.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan: 'standard' })).status).toBe(201);
    const key = (await env.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'owner' })).json.apiKey as string;
    const plain = { a: apiClient(`http://127.0.0.1:${env.ingressPort}`, key), b: apiClient(second.url, key) };
    const bucket = `plain-${env.run}`;
    await createBucket(env.env.S3_ENDPOINT!, bucket);
    const connection = {
      connectionId: 'mine',
      bucket,
      region: 'us-east-1',
      endpoint: env.env.S3_ENDPOINT,
      forcePathStyle: true,
      accessKeyId: env.env.S3_ACCESS_KEY_ID,
      secretAccessKey: env.env.S3_SECRET_ACCESS_KEY,
    };

    // When it registers a connection, through either process: refused, naming the rule, nothing stored
    for (const api of [plain.a, plain.b]) {
      const refused = await api.post('/v1/s3-connections', connection);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.json.error.code).toBe('PLAN_FORBIDS_CUSTOM_S3');
      expect(refused.json.message).toMatch(/high plan only \(your plan: standard\)/);
    }
    expect((await plain.a.get('/v1/s3-connections')).json.connections).toEqual([]);

    // Then once the operator moved it to the high plan, through B, A registers it
    const changed = await apiClient(second.url, env.adminToken).put(`/admin/v1/tenants/${tenantId}/plan`, { plan: 'high' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.plan).toBe('high');
    const registered = await plain.a.post('/v1/s3-connections', connection);
    expect(registered.status, registered.text).toBe(201);
    expect((await plain.b.get('/v1/s3-connections/mine')).json).toMatchObject({ connectionId: 'mine', bucket });
  });

  // Issue 11 point 4 (last: it fills the async lane for good, no render worker runs here).
  it('back-pressure over both processes: past the async backlog, async requests get 429 BACKLOG_FULL with Retry-After on either; sync requests are still taken', async () => {
    const webhook = 'http://127.0.0.1:9/never-called';
    const refusedBy = (api: ApiClient) =>
      waitFor(
        async () => {
          const r = await api.post('/v1/html-to-pdf/async', { html: '<p>queued</p>', webhook });
          expect([200, 429], r.text).toContain(r.status);
          return r.status === 429 ? r : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: 'an async request refused for the backlog' },
      );
    // Given async requests piling up with no render worker to take them, when one more is sent
    const refused = await refusedBy(a);
    // Then it is refused before being taken, in the error shape, with Retry-After; by the other process too
    expect(refused.json.error.code).toBe('BACKLOG_FULL');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await refusedBy(b)).json.error.code).toBe('BACKLOG_FULL');
    // While a sync request, on its own lane, is still taken (no worker: 202 and a status URL after the sync wait)
    const sync = await b.post('/v1/html-to-pdf/sync', { html: '<p>sync lane</p>' });
    expect(sync.status, sync.text).toBe(202);
  });
});
