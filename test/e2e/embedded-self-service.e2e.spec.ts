import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, type ApiClient } from '../support/api-client.ts';
import { createBucket, listKeys, s3Credentials } from '../support/s3.ts';
import { startStsServer, type StsServer } from '../support/sts-server.ts';

// Issue 11, points 1 and 2, over HTTP with two tenants: a tenant manages its own keys and S3
// connections; nothing of another tenant's is reachable (404 exactly like an unknown id).

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

async function tenant(svc: Svc, tenantId: string, plan: 'standard' | 'high'): Promise<ApiClient> {
  expect((await svc.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan })).status).toBe(201);
  const key = await svc.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'owner' });
  expect(key.status, key.text).toBe(201);
  return apiClient(svc.baseUrl, key.json.apiKey as string);
}

describe('embedded profile: tenants manage their keys and S3 connections', () => {
  let svc: Svc;
  let acme: ApiClient;
  let globex: ApiClient;
  const endpoint = inject('S3_ENDPOINT');
  const bucket = `self-service-${randomBytes(4).toString('hex')}`;
  const connection = { bucket, region: 'us-east-1', endpoint, forcePathStyle: true, ...s3Credentials };
  const role = { roleArn: 'arn:aws:iam::123456789012:role/pressroom-writer', externalId: 'acme-7f3a' };
  let sts: StsServer;

  beforeAll(async () => {
    // Role connections assume their role through this STS endpoint: it grants the role only with
    // acme's external id, and hands out the S3 server's key with a session token.
    sts = await startStsServer({ ...role, grants: s3Credentials });
    svc = await startEmbedded({
      PRESSROOM_S3_STS_ENDPOINT: sts.url,
      AWS_ACCESS_KEY_ID: 'service-key',
      AWS_SECRET_ACCESS_KEY: 'service-secret',
    });
    acme = await tenant(svc, 'acme', 'high');
    globex = await tenant(svc, 'globex', 'high');
    await createBucket(endpoint, bucket);
  });
  afterAll(async () => {
    await svc?.app.stop();
    await sts?.stop();
  });

  it('creates a key shown once with a recognisable prefix, and lists keys without secrets or hashes', async () => {
    // When acme creates a render-only key
    const created = await acme.post('/v1/keys', { label: 'worker', scopes: ['render'] });

    // Then the key is shown once, in the documented format, and works
    expect(created.status, created.text).toBe(201);
    const key = created.json.apiKey as string;
    expect(key).toMatch(/^prs_live_[0-9A-Za-z]{46}$/);
    expect(created.json.key).toMatchObject({ label: 'worker', scopes: ['render'], status: 'active', prefix: key.slice(0, 13) });
    expect((await apiClient(svc.baseUrl, key).get('/v1/templates')).status).toBe(200);

    // And the listing shows its id, prefix, scopes and use, but never the key or a hash
    const list = await acme.get('/v1/keys');
    expect(list.status).toBe(200);
    const listed = (list.json.keys as { keyId: string; lastUsedAt: string | null }[]).find((k) => k.keyId === created.json.key.keyId);
    expect(listed).toMatchObject({ prefix: key.slice(0, 13), scopes: ['render'] });
    expect(listed?.lastUsedAt).toEqual(expect.any(String));
    expect(list.text).not.toContain(key);
    expect(list.text).not.toMatch(/[0-9a-f]{64}/);
    // And globex sees none of acme's keys
    const theirs = await globex.get('/v1/keys');
    expect((theirs.json.keys as { keyId: string }[]).map((k) => k.keyId)).not.toContain(created.json.key.keyId);
  });

  it('a render-only key renders but gets 403 on every management route', async () => {
    const renderOnly = apiClient(svc.baseUrl, (await acme.post('/v1/keys', { scopes: ['render'] })).json.apiKey as string);
    expect((await renderOnly.post('/v1/html-to-pdf/sync', { html: '<p>ok</p>' })).status).toBe(200);
    for (const res of [
      await renderOnly.get('/v1/keys'),
      await renderOnly.post('/v1/keys', {}),
      await renderOnly.get('/v1/s3-connections'),
      await renderOnly.post('/v1/s3-connections', connection),
    ]) {
      expect(res.status).toBe(403);
      expect(res.json.error.code).toBe('FORBIDDEN');
    }
  });

  it('a manage-only key manages keys and connections but gets 403 on every render route', async () => {
    const manageOnly = apiClient(svc.baseUrl, (await acme.post('/v1/keys', { label: 'admin', scopes: ['manage'] })).json.apiKey as string);
    expect((await manageOnly.get('/v1/keys')).status).toBe(200);
    expect((await manageOnly.get('/v1/s3-connections')).status).toBe(200);
    for (const res of [
      await manageOnly.post('/v1/html-to-pdf/sync', { html: '<p>not with this key</p>' }),
      await manageOnly.post('/v1/html-to-pdf/async', { html: '<p>nor this</p>', webhook: 'http://127.0.0.1:9/unused' }),
      await manageOnly.get('/v1/templates'),
      await manageOnly.post('/v1/templates', { name: 'sneaky', content: '<p>x</p>' }),
      await manageOnly.get('/v1/usage'),
    ]) {
      expect(res.status, res.text).toBe(403);
      expect(res.json.error).toMatchObject({ code: 'FORBIDDEN', details: [{ field: 'scopes', message: 'must include render' }] });
    }
    // Nothing was made with it
    expect((await acme.get('/v1/templates')).json.templates.some((t: { name: string }) => t.name === 'sneaky')).toBe(false);
  });

  it('a revoked key gets 401 at once', async () => {
    const created = await acme.post('/v1/keys', { label: 'to revoke' });
    const key = apiClient(svc.baseUrl, created.json.apiKey as string);
    expect((await key.get('/v1/templates')).status).toBe(200);

    const revoked = await acme.post(`/v1/keys/${created.json.key.keyId}/revoke`, {});
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.json.status).toBe('revoked');

    const after = await key.get('/v1/templates');
    expect(after.status).toBe(401);
    expect(after.json.error.code).toBe('UNAUTHENTICATED');
  });

  it('a rotated key works during its overlap and gets 401 after; the new key works', async () => {
    const created = await acme.post('/v1/keys', { label: 'rotating' });
    const old = apiClient(svc.baseUrl, created.json.apiKey as string);

    const rotated = await acme.post(`/v1/keys/${created.json.key.keyId}/rotate`, { overlapSeconds: 2 });
    expect(rotated.status, rotated.text).toBe(201);
    expect(rotated.json.previous).toMatchObject({ status: 'expiring', replacedBy: rotated.json.key.keyId });
    expect(rotated.json.key).toMatchObject({ label: 'rotating', scopes: ['render', 'manage'] });
    const next = apiClient(svc.baseUrl, rotated.json.apiKey as string);

    // During the overlap both keys work
    expect((await old.get('/v1/templates')).status).toBe(200);
    expect((await next.get('/v1/templates')).status).toBe(200);
    // After it, only the new one
    await waitFor(async () => (await old.get('/v1/templates')).status === 401, { timeoutMs: 10_000, description: 'the old key to expire' });
    expect((await next.get('/v1/templates')).status).toBe(200);
    // And a rotated key cannot be rotated again
    expect((await acme.post(`/v1/keys/${created.json.key.keyId}/rotate`, {})).status).toBe(409);
  });

  it("another tenant's key id answers exactly like an unknown one", async () => {
    const acmeKey = (await acme.post('/v1/keys', { label: 'private' })).json.key.keyId as string;
    const foreignRevoke = await globex.post(`/v1/keys/${acmeKey}/revoke`, {});
    const unknownRevoke = await globex.post('/v1/keys/key_0000000000000000/revoke', {});
    expect(foreignRevoke.status).toBe(404);
    expect(strip(foreignRevoke.json, acmeKey)).toEqual(strip(unknownRevoke.json, 'key_0000000000000000'));
    const foreignRotate = await globex.post(`/v1/keys/${acmeKey}/rotate`, {});
    expect(foreignRotate.status).toBe(404);
    // And acme's key still works
    expect((await acme.get('/v1/keys')).json.keys.find((k: { keyId: string }) => k.keyId === acmeKey).status).toBe('active');
  });

  it('registers a connection after a test write and delete, never answers its secret, and renders into it', async () => {
    const res = await acme.post('/v1/s3-connections', { connectionId: 'archive', ...connection });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ connectionId: 'archive', bucket, credentials: 'static', accessKeyId: s3Credentials.accessKeyId });
    expect(res.text).not.toContain(s3Credentials.secretAccessKey);
    // The test object was deleted
    expect(await listKeys(endpoint, bucket, '.pressroom-connection-test/')).toEqual([]);

    const listed = await acme.get('/v1/s3-connections');
    expect(listed.json.connections.map((c: { connectionId: string }) => c.connectionId)).toEqual(['archive']);
    expect(listed.text).not.toContain(s3Credentials.secretAccessKey);

    const rendered = await acme.post('/v1/html-to-pdf/sync', { html: '<p>to the archive</p>', s3_bucket: 'archive', s3_key: 'out/doc' });
    expect(rendered.status, rendered.text).toBe(200);
    expect(await listKeys(endpoint, bucket, 'out/')).toEqual(['out/doc.pdf']);
  });

  it("another tenant's connection id answers exactly like an unknown one, on every route", async () => {
    for (const [foreign, unknown] of [
      [await globex.get('/v1/s3-connections/archive'), await globex.get('/v1/s3-connections/nope')],
      [await globex.put('/v1/s3-connections/archive', connection), await globex.put('/v1/s3-connections/nope', connection)],
      [await globex.del('/v1/s3-connections/archive'), await globex.del('/v1/s3-connections/nope')],
    ]) {
      expect(foreign!.status).toBe(404);
      expect(strip(foreign!.json, 'archive')).toEqual(strip(unknown!.json, 'nope'));
    }
    expect((await globex.get('/v1/s3-connections')).json.connections).toEqual([]);
    const render = await globex.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', s3_bucket: 'archive' });
    expect(render.status).toBe(400);
    // acme's connection is untouched
    expect((await acme.get('/v1/s3-connections/archive')).status).toBe(200);
  });

  it('refuses a connection whose bucket refuses the test write, with the storage reason, and stores nothing', async () => {
    const res = await acme.post('/v1/s3-connections', { connectionId: 'refusing', ...connection, secretAccessKey: 'not-the-secret' });
    expect(res.status, res.text).toBe(422);
    expect(res.json.error.code).toBe('S3_CONNECTION_TEST_FAILED');
    expect(res.json.error.details[0].message).toMatch(/SignatureDoesNotMatch|AccessDenied|InvalidAccessKeyId/);
    expect((await acme.get('/v1/s3-connections/refusing')).status).toBe(404);

    const missing = await acme.post('/v1/s3-connections', { connectionId: 'missing', ...connection, bucket: `${bucket}-missing` });
    expect(missing.status).toBe(422);
    expect(missing.json.error.details[0].message).toMatch(/NoSuchBucket/);
  });

  it('takes a role with an external id instead of static credentials: assumed through STS, the test write and the renders use what STS granted', async () => {
    const noStatic = without(connection, 'accessKeyId', 'secretAccessKey');
    const both = await acme.post('/v1/s3-connections', { ...connection, ...role });
    expect(both.status).toBe(400);
    expect(both.json.error.details[0].field).toBe('roleArn');
    expect((await acme.post('/v1/s3-connections', { ...noStatic, roleArn: 'not-an-arn' })).status).toBe(400);

    // A wrong external id: STS refuses, and so does the registration, with STS's reason
    const refused = await acme.post('/v1/s3-connections', { connectionId: 'role-wrong-id', ...noStatic, ...role, externalId: 'guessed' });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.error.code).toBe('S3_CONNECTION_TEST_FAILED');
    expect(refused.json.error.details[0].message).toMatch(/Not authorized to perform sts:AssumeRole/);

    // The right one: the service assumes the role with its own identity and the tenant's external id
    const res = await acme.post('/v1/s3-connections', { connectionId: 'role', ...noStatic, ...role });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ connectionId: 'role', roleArn: role.roleArn, externalId: role.externalId });
    expect(res.text).not.toContain(s3Credentials.secretAccessKey);
    expect(sts.calls.at(-1)).toEqual({
      roleArn: role.roleArn,
      externalId: role.externalId,
      sessionName: 'pressroom',
      signedBy: 'service-key',
    });

    // And a render to that connection lands in the tenant's bucket, written with the role's credentials
    const rendered = await acme.post('/v1/html-to-pdf/sync', { html: '<p>through a role</p>', s3_bucket: 'role', s3_key: 'role/out' });
    expect(rendered.status, rendered.text).toBe(200);
    expect(await listKeys(endpoint, bucket, 'role/')).toEqual(['role/out.pdf']);
  });

  it('refuses a connection to a private or metadata endpoint when the operator has not opened them', async () => {
    // This service allows private S3 endpoints (the tests' S3 server is on loopback); metadata is never allowed.
    const res = await acme.post('/v1/s3-connections', { ...connection, endpoint: 'http://169.254.169.254/' });
    expect(res.status).toBe(400);
    expect(res.json.error.details[0]).toMatchObject({ field: 'endpoint' });
  });

  it('updates a connection (tested again, the secret kept when the key id stays) and deletes it', async () => {
    const withoutSecret = without(connection, 'secretAccessKey');
    const updated = await acme.put('/v1/s3-connections/archive', { ...withoutSecret, region: 'eu-west-1' });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ connectionId: 'archive', region: 'eu-west-1' });
    const broken = await acme.put('/v1/s3-connections/archive', { ...connection, bucket: `${bucket}-missing` });
    expect(broken.status).toBe(422);
    expect((await acme.get('/v1/s3-connections/archive')).json.bucket).toBe(bucket);

    expect((await acme.del('/v1/s3-connections/archive')).status).toBe(204);
    expect((await acme.get('/v1/s3-connections/archive')).status).toBe(404);
    expect((await acme.post('/v1/html-to-pdf/sync', { html: '<p>x</p>', s3_bucket: 'archive' })).status).toBe(400);
  });

  it('custom S3 is for the high plan: 403 PLAN_FORBIDS_CUSTOM_S3 until the operator changes the plan', async () => {
    const small = await tenant(svc, 'smallco', 'standard');
    const refused = await small.post('/v1/s3-connections', connection);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('PLAN_FORBIDS_CUSTOM_S3');

    const changed = await svc.admin.put('/admin/v1/tenants/smallco/plan', { plan: 'high' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.plan).toBe('high');
    expect((await small.post('/v1/s3-connections', connection)).status).toBe(201);
  });

  it('the operator lists, revokes and rotates any tenant’s keys; the configured key keeps working with both scopes', async () => {
    const keys = await svc.admin.get('/admin/v1/tenants/globex/keys');
    expect(keys.status).toBe(200);
    const owner = (keys.json.keys as { keyId: string; label: string }[]).find((k) => k.label === 'owner')!;
    const rotated = await svc.admin.post(`/admin/v1/tenants/globex/keys/${owner.keyId}/rotate`, { overlapSeconds: 3600 });
    expect(rotated.status, rotated.text).toBe(201);
    expect((await globex.get('/v1/keys')).status).toBe(200); // the old key, in its overlap
    expect((await svc.admin.post(`/admin/v1/tenants/globex/keys/${rotated.json.key.keyId}/revoke`, {})).status).toBe(200);
    expect((await apiClient(svc.baseUrl, rotated.json.apiKey as string).get('/v1/keys')).status).toBe(401);
    expect((await svc.admin.post(`/admin/v1/tenants/acme/keys/${owner.keyId}/revoke`, {})).status).toBe(404);

    const configured = (await svc.api.get('/v1/keys')).json.keys as { label: string; scopes: string[]; prefix: string | null }[];
    expect(configured.find((k) => k.label === 'PRESSROOM_API_KEY')).toMatchObject({ scopes: ['render', 'manage'], prefix: null });
  });
});

/** An error body with the id it names replaced, so two answers can be compared. */
function strip(body: unknown, id: string): unknown {
  return JSON.parse(JSON.stringify(body).split(id).join('<id>'));
}

function without<T extends object>(value: T, ...keys: (keyof T)[]): Partial<T> {
  const copy: Partial<T> = { ...value };
  for (const k of keys) delete copy[k];
  return copy;
}
