import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventFactory, createFileEventLog, systemClock, topicNames, uuidV7Ids } from '@pressroom/core';
import { waitFor } from '@pressroom/testing';
import { join } from 'node:path';
import { startEmbedded } from '../support/embedded-service.ts';
import { download, type ApiClient } from '../support/api-client.ts';
import { pdfText } from '../support/pdf-tools.ts';
import { AppProcess } from '../support/service-process.ts';
import { startCanary, type Canary } from '../../libs/renderer/src/test-support/canary.ts';
import { crashOnEveryAttempt, rendererHostPids } from '../support/renderer-host.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

/** Calls Playwright's binding with a payload its dispatcher cannot parse, if the page can see it. */
const callBinding = `try { window.__playwright__binding__("not json") } catch (e) {}`;
/** What automation globals a page can see; "none" when it sees none. */
const probe =
  `(Object.getOwnPropertyNames(window).filter(function (n) { return /playwright|__pw/i.test(n) }).join(",") || "none")` +
  ` + " binding=" + typeof window.__playwright__binding__ + " dispatch=" + typeof window.__pwWebSocketDispatch`;

async function expectServing(svc: Svc, label: string): Promise<void> {
  expect((await fetch(`${svc.baseUrl}/healthz`)).status).toBe(200);
  const plain = await svc.api.post('/v1/html-to-pdf/sync', { html: `<p>plain after ${label}</p>` });
  expect(plain.status).toBe(200);
  expect(await pdfText((await download(plain.json.signedUrl)).bytes)).toContain(`plain after ${label}`);
}

async function statusOf(api: ApiClient, requestId: string, until: (s: string) => boolean, timeoutMs = 90_000) {
  return waitFor(
    async () => {
      const res = await api.get(`/v1/pdf/status/${requestId}`);
      return res.status === 200 && until(res.json.renderStatus) ? res.json : undefined;
    },
    { timeoutMs, intervalMs: 250, description: `status of ${requestId}` },
  );
}

describe('embedded profile: no tenant page can end or wedge the service (issue 7 points 1, 2)', () => {
  let svc: Svc;
  let canary: Canary;

  beforeAll(async () => {
    canary = await startCanary();
    // No PRESSROOM_RENDER_USER: the service runs as root here, so by default the renderer runs as
    // nobody, and everything below also runs with Chromium's sandbox on.
    svc = await startEmbedded({
      PRESSROOM_RENDER_PAGES: '1',
      PRESSROOM_RENDER_CRASH_RETRIES: '1',
      PRESSROOM_RENDER_TIMEOUT_MS: '20000',
    });
  });
  afterAll(async () => {
    await svc?.app.stop();
    await canary?.close();
  });

  it('runs the renderer of a root service as nobody by default, with Chromium sandboxed', async () => {
    expect(process.getuid?.(), 'the default is for a root service').toBe(0);
    const started = await svc.app.waitForLog((l) => l.msg === 'renderer host started');
    expect(started).toMatchObject({ sandbox: true, uid: 65534 });
    await expectServing(svc, 'start');
  });

  it('shows tenant pages no automation bindings: a probe in HTML, template code, a ready expression and a footer sees none', async () => {
    // Given probes in each world a tenant controls
    const html = await svc.api.post('/v1/html-to-pdf/sync', { html: `<p id="o"></p><script>o.textContent = "HTML " + ${probe}</script>` });
    const tpl = await svc.api.post('/v1/templates', {
      name: 'probe',
      content: `<p>TEMPLATE <%= ${probe} %></p><p id="r"></p>`,
      footer: `<span>FOOTER <%= ${probe} %></span>`,
      ready: { expression: `(document.getElementById("r").textContent = "READY " + ${probe}, true)` },
    });
    expect(tpl.status).toBe(201);
    const fromTemplate = await svc.api.post('/v1/pdf/sync', { templateId: tpl.json.templateId, data: {} });

    // Then every probe printed that it saw nothing of Playwright
    expect(html.status).toBe(200);
    expect(await pdfText((await download(html.json.signedUrl)).bytes)).toContain('HTML none binding=undefined dispatch=undefined');
    expect(fromTemplate.status).toBe(200);
    const text = await pdfText((await download(fromTemplate.json.signedUrl)).bytes);
    for (const world of ['TEMPLATE', 'READY', 'FOOTER']) expect(text).toContain(`${world} none binding=undefined dispatch=undefined`);
  });

  it.each([
    ['raw HTML', { html: `<script>${callBinding}</script><p>vector html</p>` }, '/v1/html-to-pdf/sync'],
    ['raw HTML, PNG output', { html: `<script>${callBinding}</script><p>vector png</p>`, convertToImage: true }, '/v1/html-to-pdf/sync'],
  ])('survives a call to the Playwright binding from %s, then renders the next request', async (label, body, path) => {
    // When a page calls the binding with a payload Playwright cannot parse
    const res = await svc.api.post(path, body);

    // Then the render itself succeeds (the page has no such binding) and the service keeps serving
    expect(res.status).toBe(200);
    await expectServing(svc, label);
  });

  it.each([
    ['Eta template code', { content: `<% ${callBinding} %><p>vector eta</p>` }],
    ['a ready expression', { content: '<p>vector ready</p>', ready: { expression: `(() => { ${callBinding}; return true })()` } }],
    ['a footer', { content: '<p>vector footer</p>', footer: `<% ${callBinding} %><span>f</span>` }],
  ])('survives a call to the Playwright binding from %s, then renders the next request', async (label, template) => {
    const created = await svc.api.post('/v1/templates', { name: label, ...template });
    expect(created.status).toBe(201);

    const res = await svc.api.post('/v1/pdf/sync', { templateId: created.json.templateId, data: {} });

    expect(res.status).toBe(200);
    await expectServing(svc, label);
  });

  it('lets no WebSocket reach a loopback server, whatever form its address takes', async () => {
    // Given a page that opens WebSockets to a canary on loopback by name, IPv4, IPv6 and integer forms
    const port = canary.port;
    const urls = [`ws://127.0.0.1:${port}/a`, `ws://localhost:${port}/b`, `ws://[::1]:${port}/c`, `ws://2130706433:${port}/d`];
    const html =
      `<p id="o">sockets:</p><script>for (const u of ${JSON.stringify(urls)}) { try { const w = new WebSocket(u);` +
      ` w.onopen = () => { o.textContent += " OPEN " + u } } catch (e) {} }</script>`;

    // When it renders, waiting a moment for the sockets to settle
    const res = await svc.api.post('/v1/html-to-pdf/sync', {
      html: html + '<script>const t = Date.now(); while (Date.now() - t < 500) {}</script>',
    });

    // Then none opened and the canary saw no connection at all
    expect(res.status).toBe(200);
    expect(await pdfText((await download(res.json.signedUrl)).bytes)).not.toContain('OPEN');
    expect(canary.hits()).toEqual({ requests: [], connections: 0, upgrades: 0, datagrams: 0 });
  });

  it('records a render whose renderer dies on every attempt as FAILED with RENDER_CRASHED; the ingress keeps serving', async () => {
    // Given an async render that keeps the page busy (so it is in the renderer when the renderer dies),
    // When the renderer process is killed under it on every attempt (the OOM killer, say)
    const { final } = await crashOnEveryAttempt(svc.api, svc.app, async () => {
      expect((await fetch(`${svc.baseUrl}/healthz`)).status).toBe(200); // the ingress stays up throughout
    });

    // Then it is recorded as crashed after its bounded retries (1 here), and the service renders again
    expect(final).toMatchObject({
      renderStatus: 'FAILED',
      error: { code: 'RENDER_CRASHED', message: expect.stringContaining('2 attempts') },
    });
    expect(JSON.stringify(final)).not.toMatch(/playwright|SIGKILL|pid/i);
    expect(rendererHostPids(svc.app).length).toBeGreaterThanOrEqual(2); // the renderer was restarted, the ingress never
    await expectServing(svc, 'the crashes');
  });
});

describe('embedded profile: a restart on a log holding a poisonous request (issue 7 point 2)', () => {
  let svc: Svc;
  let restarted: AppProcess | undefined;

  beforeAll(async () => {
    svc = await startEmbedded({ PRESSROOM_RENDER_PAGES: '1' });
  });
  afterAll(async () => {
    await restarted?.stop();
    await svc?.app.stop();
  });

  it('comes up, serves, and settles the request that used to kill it', async () => {
    // Given a data dir whose log holds an uncommitted request that called the Playwright binding
    // (what a crash mid-render leaves behind), written while the service is down
    await svc.app.stop();
    const log = await createFileEventLog({ dir: join(svc.dataDir, 'log') });
    const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
    const requestId = uuidV7Ids.next();
    await log.append(topicNames().requestedAsync, [
      event(
        'RenderRequested',
        { requestId, tenantId: 'default' },
        {
          mode: 'async',
          source: { kind: 'html', html: `<script>${callBinding}</script><p>poison</p>` },
          output: 'pdf',
          storage: { kind: 'default' },
        },
      ),
    ]);
    await log.close();

    // When the service starts again on that data dir
    restarted = await new AppProcess('standalone', svc.app.env, svc.app.port).start();

    // Then it serves, and the request ends (rendered safely: the page has no binding to call)
    const status = await statusOf(svc.api, requestId, (s) => s !== 'ONGOING');
    expect(status.renderStatus).toBe('SUCCESS');
    expect(await pdfText((await download(status.signedUrl)).bytes)).toContain('poison');
    const plain = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>after restart</p>' });
    expect(plain.status).toBe(200);
  });

  it('does not render again a request whose every attempt ended with the whole process dying: it ends RENDER_CRASHED', async () => {
    // Given a log holding a request with three attempts started and none finished (what a
    // request that kills the worker process itself, three times, leaves behind)
    await restarted?.stop();
    const log = await createFileEventLog({ dir: join(svc.dataDir, 'log') });
    const event = createEventFactory({ clock: systemClock, ids: uuidV7Ids });
    const ids = { requestId: uuidV7Ids.next(), tenantId: 'default' };
    const t = topicNames();
    await log.append(t.requestedAsync, [
      event('RenderRequested', ids, {
        mode: 'async',
        source: { kind: 'html', html: '<p>killer</p>' },
        output: 'pdf',
        storage: { kind: 'default' },
      }),
    ]);
    for (const attempt of [1, 2, 3]) await log.append(t.completed, [event('RenderAttemptStarted', ids, { attempt, worker: 'gone' })]);
    await log.close();

    // When the service starts again (default bound: 2 retries, so 3 attempts)
    restarted = await new AppProcess('standalone', svc.app.env, svc.app.port).start();

    // Then the request is recorded as crashed instead of being tried a 4th time, and the service serves
    const status = await statusOf(svc.api, ids.requestId, (s) => s !== 'ONGOING');
    expect(status).toMatchObject({
      renderStatus: 'FAILED',
      error: { code: 'RENDER_CRASHED', message: expect.stringContaining('3 attempts') },
    });
    expect(restarted.output.some((l) => l.includes('"render started"') && l.includes(ids.requestId))).toBe(true);
    expect(restarted.output.some((l) => l.includes('earlier attempts at this render never finished'))).toBe(true);
    const plain = await svc.api.post('/v1/html-to-pdf/sync', { html: '<p>after the killer</p>' });
    expect(plain.status).toBe(200);
  });
});
