import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { distributedEnv } from '../support/distributed-service.ts';
import { uploadAsset, download } from '../support/api-client.ts';
import { pdfText } from '../support/pdf-tools.ts';
import { solidPng } from '../support/fixtures.ts';
import { listKeys } from '../support/s3.ts';
import { inject } from 'vitest';
import { runOps } from '../support/ops-cli.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

/** Every key of the template view with its hash contents. */
async function templateViewSnapshot(redisUrl: string, prefix: string): Promise<Record<string, Record<string, string>>> {
  const redis = new Redis(redisUrl);
  try {
    // The view's data; its "built" marker is a string beside the hashes.
    const keys = (await redis.keys(`${prefix}templates:*`)).filter((k) => k !== `${prefix}templates:built`).sort();
    const out: Record<string, Record<string, string>> = {};
    for (const k of keys) out[k] = await redis.hgetall(k);
    return out;
  } finally {
    redis.disconnect();
  }
}

describe('distributed profile: templates as events, rebuildable view, assets in S3', () => {
  let env: Env;

  beforeAll(async () => {
    env = await distributedEnv({ PRESSROOM_SYNC_TIMEOUT_MS: '20000' });
    await env.start('ingress', env.ingressPort);
    await Promise.all([env.start('status-projector'), env.start('render-worker')]);
  });
  afterAll(async () => {
    await env?.stopAll();
  });

  it('rebuilds the wiped Redis template view from the log (ops templates rebuild) to an equal view', async () => {
    // Given templates with versions, and one deleted
    const a = await env.api.post('/v1/templates', { name: 'a', content: '<p>A1 <%= it.x %></p>', pdfParams: { format: 'A5' } });
    expect(a.status).toBe(201);
    const id = a.json.templateId as string;
    await env.api.put(`/v1/templates/${id}`, { name: 'a', content: '<p>A2 <%= it.x %></p>' });
    await env.api.put(`/v1/templates/${id}`, { name: 'a3', content: '<p>A3 <%= it.x %></p>', footer: '<span>f</span>' });
    const gone = await env.api.post('/v1/templates', { name: 'gone', content: '<p>g</p>' });
    await env.api.del(`/v1/templates/${gone.json.templateId}`);
    const before = await templateViewSnapshot(env.env.REDIS_URL!, env.env.PRESSROOM_REDIS_PREFIX!);
    expect(Object.keys(before).length).toBeGreaterThan(0);
    const versionsBefore = (await env.api.get(`/v1/templates/${id}/versions`)).json;
    expect(versionsBefore.versions).toHaveLength(3);

    // When the view is wiped, the first read finds it empty and rebuilds it from the log: no 404
    const redis = new Redis(env.env.REDIS_URL!);
    await redis.del(...Object.keys(before), `${env.env.PRESSROOM_REDIS_PREFIX!}templates:built`);
    redis.disconnect();
    expect((await env.api.get(`/v1/templates/${id}`)).status).toBe(200);
    expect(await templateViewSnapshot(env.env.REDIS_URL!, env.env.PRESSROOM_REDIS_PREFIX!)).toEqual(before);

    // …and the operator can still wipe and rebuild it from the templates topic
    const rebuilt = await runOps(env.env, ['templates', 'rebuild']);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toEqual({ eventsApplied: 5 });

    // Then the view is equal, and renders pin versions again
    expect(await templateViewSnapshot(env.env.REDIS_URL!, env.env.PRESSROOM_REDIS_PREFIX!)).toEqual(before);
    expect((await env.api.get(`/v1/templates/${id}/versions`)).json).toEqual(versionsBefore);
    expect((await env.api.get(`/v1/templates/${gone.json.templateId}`)).status).toBe(404);
    const pinned = await env.api.post('/v1/pdf/sync', { templateId: id, templateVersion: 2, data: { x: 'pinned' } });
    expect(pinned.status, JSON.stringify(pinned.json)).toBe(200);
    expect(await pdfText((await download(pinned.json.signedUrl)).bytes)).toContain('A2 pinned');

    // And the log holds the facts, keyed by template (ops events)
    const events = await runOps(env.env, ['events', '--request', id]);
    const types = events.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string; data: { templateVersion: number } } }).event)
      .map((e) => `${e.type}:${e.data.templateVersion}`);
    expect(types).toEqual(['TemplateCreated:1', 'TemplateRevised:2', 'TemplateRevised:3']);
  });

  it('stores uploaded assets in the own bucket under <tenantId>/assets/<name>', async () => {
    const png = solidPng(8, 8);
    const up = await uploadAsset(env.api, 'dot.png', png);
    expect(up.status).toBe(201);
    expect(await listKeys(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!, 'default/assets/')).toEqual(['default/assets/dot.png']);
    const res = await fetch(`http://127.0.0.1:${env.ingressPort}/v1/assets/dot.png/content`, {
      headers: { authorization: `Bearer ${env.apiKey}` },
    });
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    expect((await env.api.del('/v1/assets/dot.png')).status).toBe(204);
    expect(await listKeys(inject('S3_ENDPOINT'), env.env.PRESSROOM_S3_BUCKET!, 'default/assets/')).toEqual([]);
  });
});
