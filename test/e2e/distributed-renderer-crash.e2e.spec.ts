import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { download } from '../support/api-client.ts';
import { pdfText } from '../support/pdf-tools.ts';
import type { AppProcess } from '../support/service-process.ts';
import { crashOnEveryAttempt, rendererHostPids } from '../support/renderer-host.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

// Issue 7 points 1 and 2 on the distributed profile: a request that kills the renderer must not
// crash-loop the render workers on its Kafka record; it ends FAILED and the worker serves on.
describe('distributed profile: a render that kills its renderer is no poison message', () => {
  let env: Env;
  let worker: AppProcess;

  beforeAll(async () => {
    env = await distributedEnv({
      PRESSROOM_RENDER_CRASH_RETRIES: '1',
      PRESSROOM_RENDER_TIMEOUT_MS: '20000',
      PRESSROOM_SYNC_TIMEOUT_MS: '20000',
    });
    await env.start('ingress', env.ingressPort);
    await env.start('status-projector');
    worker = await env.start('render-worker');
  });
  afterAll(async () => {
    await env?.stopAll();
  });

  const workerServes = async () => (await fetch(`${worker.url}/healthz`)).status === 200;

  it('renders a page that calls the Playwright binding, and the worker keeps serving', async () => {
    // Given a page that calls Playwright's binding with a payload Playwright cannot parse
    const res = await env.api.post('/v1/html-to-pdf/sync', {
      html: '<script>try { __playwright__binding__("not json") } catch (e) {}</script><p>binding vector</p>',
    });

    // Then it renders (the page has no such binding) and the worker is still there for the next one
    expect(res.status).toBe(200);
    expect(await pdfText((await download(res.json.signedUrl)).bytes)).toContain('binding vector');
    expect(await workerServes()).toBe(true);
    const next = await env.api.post('/v1/html-to-pdf/sync', { html: '<p>next</p>' });
    expect(next.status).toBe(200);
  });

  it('records a request whose renderer dies on every attempt as FAILED with RENDER_CRASHED, commits it, and serves on', async () => {
    // Given an async render that is in the renderer when it dies,
    // When the worker's renderer process is killed on every attempt
    const { requestId, final } = await crashOnEveryAttempt(env.api, worker, async () => {
      expect(await workerServes()).toBe(true); // the worker process itself never goes down
    });

    // Then the request ends FAILED with RENDER_CRASHED after its bounded retries
    expect(final).toMatchObject({ renderStatus: 'FAILED', error: { code: 'RENDER_CRASHED' } });
    expect(rendererHostPids(worker).length).toBeGreaterThanOrEqual(2);

    // ... and the worker renders the next request on the same lane, handled the poisonous record
    // once (it was committed, not delivered again), and that request stays FAILED
    const next = await env.api.post('/v1/html-to-pdf/async', { html: '<p>after the poison</p>', webhook: 'http://127.0.0.1:9/unused' });
    const done = await waitFor(
      async () => {
        const res = await env.api.get(`/v1/pdf/status/${next.json.requestId}`);
        return res.json?.renderStatus === 'SUCCESS' ? res.json : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'the next render' },
    );
    expect(await pdfText((await download(done.signedUrl)).bytes)).toContain('after the poison');
    expect((await env.api.get(`/v1/pdf/status/${requestId}`)).json).toMatchObject({ renderStatus: 'FAILED' });
    expect(worker.output.filter((l) => l.includes('"render started"') && l.includes(requestId))).toHaveLength(1);
  });
});
