import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEmbedded } from '../support/embedded-service.ts';
import { runOps } from '../support/ops-cli.ts';
import { createBucket, s3Credentials } from '../support/s3.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

/** The ops CLI as an operator meets it while the embedded service runs (and holds its data dir). */
describe('ops CLI next to a running embedded service', () => {
  let svc: Svc;
  let env: Record<string, string>;

  beforeAll(async () => {
    svc = await startEmbedded();
    env = {
      PRESSROOM_PROFILE: 'embedded',
      PRESSROOM_DATA_DIR: svc.dataDir,
      PRESSROOM_ADMIN_TOKEN: svc.adminToken,
      PRESSROOM_PUBLIC_URL: svc.baseUrl,
      PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS: 'true',
    };
  });
  afterAll(async () => {
    await svc?.app.stop();
  });

  it('answers help and typos at once, with one-line errors and usage exit codes, never a stack trace', async () => {
    const help = await runOps(env, ['--help'], { json: false });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('tenants');
    const typo = await runOps(env, ['statsu', 'rebuild']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("error: unknown command 'statsu'");
    expect(typo.stderr).toContain('Did you mean status?');
    const missing = await runOps(env, ['tenants', 'create', '--name', 'Acme']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe("error: required option '--plan <plan>' not specified");
    for (const r of [typo, missing]) expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('creates a tenant, a key and an S3 connection through the admin API while the service holds the log', async () => {
    const tenant = await runOps(env, ['tenants', 'create', '--name', 'Acme', '--plan', 'high', '--id', 'ops-acme']);
    expect(tenant.code, tenant.stderr).toBe(0);
    expect(JSON.parse(tenant.stdout)).toMatchObject({ tenantId: 'ops-acme', plan: 'high' });

    // Human output is a table; the key works against the running service at once.
    const key = await runOps(env, ['keys', 'create', '--tenant', 'ops-acme'], { json: false });
    expect(key.code, key.stderr).toBe(0);
    const apiKey = /prs_live_[A-Za-z0-9]{46}/.exec(key.stdout)?.[0];
    expect(key.stdout).toContain('│ tenantId');
    const templates = await fetch(`${svc.baseUrl}/v1/templates`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(templates.status).toBe(200);

    // A secret on the command line is refused; from stdin it is taken.
    const onArgv = await runOps(env, [
      's3',
      'add',
      '--tenant',
      'ops-acme',
      '--bucket',
      'b',
      '--region',
      'us-east-1',
      '--access-key-id',
      'k',
      '--secret-access-key',
      's',
    ]);
    expect(onArgv.code).toBe(2);
    expect(onArgv.stderr).toContain('--secret-access-key-stdin');
    // The connection is tested with a write and a delete in its bucket before it is stored.
    const endpoint = inject('S3_ENDPOINT');
    const bucket = `ops-archive-${randomBytes(4).toString('hex')}`;
    await createBucket(endpoint, bucket);
    const s3Args = [
      's3',
      'add',
      '--tenant',
      'ops-acme',
      '--id',
      'archive',
      '--region',
      'us-east-1',
      '--endpoint',
      endpoint,
      '--path-style',
    ];
    const s3Key = ['--access-key-id', s3Credentials.accessKeyId, '--secret-access-key-stdin'];
    const s3 = await runOps(env, [...s3Args, '--bucket', bucket, ...s3Key], { input: `${s3Credentials.secretAccessKey}\n` });
    expect(s3.code, s3.stderr).toBe(0);
    expect(JSON.parse(s3.stdout)).toMatchObject({ connectionId: 'archive', bucket });
    expect(s3.stdout).not.toContain(s3Credentials.secretAccessKey);

    // Keys: list (no secret), rotate (the old key works in its overlap), revoke (401 at once); the plan changes.
    const list = await runOps(env, ['keys', 'list', '--tenant', 'ops-acme']);
    expect(list.code, list.stderr).toBe(0);
    const [listed] = JSON.parse(list.stdout) as { keyId: string; prefix: string }[];
    expect(listed!.prefix).toBe(apiKey!.slice(0, 13));
    expect(list.stdout).not.toContain(apiKey);
    const rotated = await runOps(env, ['keys', 'rotate', '--tenant', 'ops-acme', '--key', listed!.keyId, '--overlap', '3600']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKey = (JSON.parse(rotated.stdout) as { apiKey: string }).apiKey;
    const status = async (key: string) =>
      (await fetch(`${svc.baseUrl}/v1/templates`, { headers: { authorization: `Bearer ${key}` } })).status;
    expect([await status(apiKey!), await status(newKey)]).toEqual([200, 200]);
    const revoked = await runOps(env, ['keys', 'revoke', '--tenant', 'ops-acme', '--key', listed!.keyId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect([await status(apiKey!), await status(newKey)]).toEqual([401, 200]);
    const plan = await runOps(env, ['tenants', 'plan', '--tenant', 'ops-acme', '--plan', 'standard']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ tenantId: 'ops-acme', plan: 'standard' });

    // The audit reads the log through the service too.
    const events = await runOps(env, ['events', '--request', 'ops-acme']);
    expect(events.code, events.stderr).toBe(0);
    const types = events.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string } }).event.type);
    expect(types).toEqual([
      'TenantCreated',
      'ApiKeyIssued',
      'S3ConnectionRegistered',
      'ApiKeyIssued',
      'ApiKeyRotated',
      'ApiKeyRevoked',
      'TenantPlanChanged',
    ]);
  }, 180_000);

  it("shows, rotates and replays a tenant's webhooks through the admin API while the service holds the log", async () => {
    const created = await runOps(env, ['tenants', 'create', '--name', 'Hooks', '--plan', 'standard', '--id', 'ops-hooks']);
    expect(created.code, created.stderr).toBe(0);
    const secret = await runOps(env, ['webhooks', 'secret', '--tenant', 'ops-hooks']);
    expect(secret.code, secret.stderr).toBe(0);
    const first = (JSON.parse(secret.stdout) as { secret: string }).secret;
    expect(first).toMatch(/^whsec_/);
    const rotated = await runOps(env, ['webhooks', 'rotate', '--tenant', 'ops-hooks']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const after = JSON.parse(rotated.stdout) as { secret: string; previous?: { secret: string } };
    expect(after.secret).not.toBe(first);
    expect(after.previous?.secret).toBe(first);
    // Nothing completed for this tenant in the range: nothing to replay, and said so in the answer.
    const replay = await runOps(env, [
      'webhooks',
      'replay',
      '--tenant',
      'ops-hooks',
      '--from',
      '2020-01-01T00:00:00Z',
      '--to',
      '2020-01-02T00:00:00Z',
    ]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ replayId: expect.any(String), requestIds: [] });
    const unknown = await runOps(env, ['webhooks', 'secret', '--tenant', 'nobody-here']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toMatch(/^error: the service refused it: /);
  }, 180_000);

  it('says in one line why a command needs the data dir when the service holds it, and how to proceed', async () => {
    const out = await runOps(env, ['webhooks', 'rebuild']);
    expect(out.code).toBe(1);
    expect(out.stderr.trim().split('\n').at(-1)).toMatch(/^error: the service is running and holds .*; stop it to run `webhooks rebuild`/);
    const noToken = await runOps({ ...env, PRESSROOM_ADMIN_TOKEN: '' }, ['tenants', 'create', '--name', 'B', '--plan', 'standard']);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('set PRESSROOM_ADMIN_TOKEN');
  }, 120_000);

  it('rebuilds the embedded status view into the snapshot the next start loads, with a table for humans (service stopped)', async () => {
    // While the service runs it holds the log: one line saying what to do
    const running = await runOps(env, ['status', 'rebuild']);
    expect(running.code).toBe(1);
    expect(running.stderr.trim()).toMatch(/^error: the service is running and holds .*; stop it to run `status rebuild`/);

    // A render, then a clean shutdown (which writes the view's snapshot)
    const render = await svc.api.post('/v1/html-to-pdf/async', { html: '<p>rebuild me</p>', webhook: 'http://127.0.0.1:9/unused' });
    expect(render.status).toBeLessThan(300);
    await svc.app.stop();

    const rebuilt = await runOps(env, ['status', 'rebuild']);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ requests: 1, snapshotFound: true, differedBefore: 0, verified: true });
    expect((JSON.parse(rebuilt.stdout) as { eventsApplied: number }).eventsApplied).toBeGreaterThan(0);
    const human = await runOps(env, ['status', 'rebuild'], { json: false });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/│ verified\s+│ true/);
  }, 180_000);
});
