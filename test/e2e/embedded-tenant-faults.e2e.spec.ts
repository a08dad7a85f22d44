import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../support/embedded-service.ts';
import { download, type ApiClient } from '../support/api-client.ts';
import { pdfText } from '../support/pdf-tools.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

// Issue 7, point 7, over HTTP: a failure the tenant caused is the tenant's (422 on the sync
// endpoints, FAILED with a tenant code on the async ones) and is told in our own words; 5xx is
// kept for our own faults; no text of the browser automation ever reaches a caller.

type Svc = Awaited<ReturnType<typeof startEmbedded>>;
type Res = Awaited<ReturnType<ApiClient['post']>>;

/** Words of Playwright, Chromium's DevTools protocol or our internals that must never reach a caller. */
const AUTOMATION =
  /page\.\w+|Protocol error|Execution context|playwright|Target (page|closed|crashed)|CDP|browserContext|Emulation\.|\bat .+\.ts:\d+/i;

function expectFailure(res: Res, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ error: { code, message: expect.any(String) } });
  expect(res.text).not.toMatch(AUTOMATION);
}

describe('embedded profile: errors say whose fault it is', () => {
  let svc: Svc;
  const receiver = new WebhookReceiver();
  const html = (body: Record<string, unknown>) => svc.api.post('/v1/html-to-pdf/sync', body);

  beforeAll(async () => {
    await receiver.start();
    svc = await startEmbedded({ PRESSROOM_RENDER_MAX_PNG_PIXELS: '5000000', PRESSROOM_RENDER_PAGES: '1' });
  });
  afterAll(async () => {
    await svc?.app.stop();
    await receiver.stop();
  });

  it.each([
    ['a meta refresh', '<meta http-equiv="refresh" content="0;url=about:blank"><p>mine</p>'],
    ['a change of location', '<p>mine</p><script>location.href = "about:blank"</script>'],
    ['a reload', '<p>mine</p><script>location.reload()</script>'],
    ['window.open into the same window', '<p>mine</p><script>window.open("about:blank", "_self")</script>'],
    ['a form submitted to the top', '<form id="f" action="about:blank" target="_top"></form><p>mine</p><script>f.submit()</script>'],
    ['a frame navigating the top', `<p>mine</p><iframe srcdoc="<script>top.location = 'about:blank'</script>"></iframe>`],
    ['a navigation to its own asset', '<p>mine</p><script>location.href = "https://assets.pressroom.invalid/page.svg"</script>'],
  ])('answers 422 NAVIGATION_REFUSED when the page leaves its document by %s', async (_how, page) => {
    expectFailure(await html({ html: page }), 422, 'NAVIGATION_REFUSED');
  });

  it('answers 422 NAVIGATION_REFUSED when the page closes itself (was 500 "The browser page stopped…")', async () => {
    const res = await html({ html: '<p>mine</p><script>window.close()</script>' });
    expectFailure(res, 422, 'NAVIGATION_REFUSED');
    expect(res.json.error.message).toContain('window.close()');
  });

  it('answers 422 NAVIGATION_REFUSED, not a time-out, when the page refreshes while a readiness signal is awaited', async () => {
    const tpl = await svc.api.post('/v1/templates', {
      name: 'refresh while waiting',
      content: '<meta http-equiv="refresh" content="0.3;url=about:blank"><p>x</p>',
      ready: { selector: '#never' },
    });
    expect(tpl.status, tpl.text).toBe(201);
    expectFailure(await svc.api.post('/v1/pdf/sync', { templateId: tpl.json.templateId, data: {} }), 422, 'NAVIGATION_REFUSED');
  });

  it('answers 422 NAVIGATION_REFUSED for a template whose page refreshes itself (was 500 "page.evaluate: Execution context was destroyed")', async () => {
    const tpl = await svc.api.post('/v1/templates', {
      name: 'refresh',
      content: '<meta http-equiv="refresh" content="0;url=about:blank"><p><%= it.x %></p>',
    });
    expect(tpl.status, tpl.text).toBe(201);
    expectFailure(await svc.api.post('/v1/pdf/sync', { templateId: tpl.json.templateId, data: { x: 'y' } }), 422, 'NAVIGATION_REFUSED');
  });

  it('refuses absurd page sizes and margins at the door with 400 naming the field', async () => {
    const huge = await html({ html: '<p>x</p>', pdfParams: { width: '100000mm', height: '100000mm' } });
    expectFailure(huge, 400, 'VALIDATION_FAILED');
    expect(huge.json.error.details).toEqual(
      expect.arrayContaining([
        { field: 'pdfParams.width', message: 'must be at most 200in (5080mm)' },
        { field: 'pdfParams.height', message: 'must be at most 200in (5080mm)' },
      ]),
    );
    const margin = await html({ html: '<p>x</p>', pdfParams: { margin: { top: '99999999mm' } } });
    expectFailure(margin, 400, 'VALIDATION_FAILED');
    const stored = await svc.api.post('/v1/templates', {
      name: 'sliver',
      content: '<p>x</p>',
      pdfParams: { width: '0.01mm', height: '10cm' },
    });
    expectFailure(stored, 400, 'VALIDATION_FAILED');
  });

  it("answers 422 PAGE_SETUP_INVALID when the template's margins and the request's paper leave no room", async () => {
    const tpl = await svc.api.post('/v1/templates', {
      name: 'wide margins',
      content: '<p>x</p>',
      pdfParams: { margin: { top: '80mm', bottom: '80mm' } },
    });
    expect(tpl.status, tpl.text).toBe(201);
    const res = await svc.api.post('/v1/pdf/sync', { templateId: tpl.json.templateId, data: {}, pdfParams: { format: 'A6' } });
    expectFailure(res, 422, 'PAGE_SETUP_INVALID');
    expect(res.json.error.message).toContain('leave no room for content on a 105 x 148 mm page');
  });

  it('answers 422 OUTPUT_TOO_LARGE for a 10-million-pixel PNG over the configured pixel limit', async () => {
    const res = await html({ html: '<div style="width:10px;height:12600px;background:red"></div>', convertToImage: true });
    expectFailure(res, 422, 'OUTPUT_TOO_LARGE');
    expect(res.json.error.message).toMatch(/over the limit of 5,000,000 pixels/);
  });

  it('answers 422 OUTPUT_TOO_LARGE before rendering a PNG whose sheet alone is over the pixel limit', async () => {
    const res = await html({ html: '<p>x</p>', convertToImage: true, pdfParams: { width: '200in', height: '200in' } });
    expectFailure(res, 422, 'OUTPUT_TOO_LARGE');
    expect(res.json.error.message).toContain('19200 x 19200 pixels');
  });

  it('answers 422 TEMPLATE_ERROR in the template’s own words when it throws', async () => {
    const tpl = await svc.api.post('/v1/templates', { name: 'throws', content: '<p><% throw new Error("broken on purpose") %></p>' });
    const res = await svc.api.post('/v1/pdf/sync', { templateId: tpl.json.templateId, data: {} });
    expectFailure(res, 422, 'TEMPLATE_ERROR');
    expect(res.json.error.message).toContain('broken on purpose');
  });

  it.each([
    ['replaces Promise.all', '<script>Promise.all = null</script><p>x</p>'],
    [
      'breaks document.fonts',
      '<script>Object.defineProperty(Document.prototype, "fonts", { get() { throw new Error("no fonts") } })</script><p>x</p>',
    ],
    ['replaces Array.from', '<script>Array.from = null</script><p>x</p>'],
  ])("answers 422 TEMPLATE_ERROR when the page's own script %s (was 500 with Playwright's text)", async (_what, page) => {
    expectFailure(await html({ html: page }), 422, 'TEMPLATE_ERROR');
  });

  it('answers 422 TEMPLATE_ERROR for a readiness expression that does not parse, without the automation call in it', async () => {
    const tpl = await svc.api.post('/v1/templates', { name: 'bad ready', content: '<p>x</p>', ready: { expression: ')(' } });
    expect(tpl.status, tpl.text).toBe(201);
    const res = await svc.api.post('/v1/pdf/sync', { templateId: tpl.json.templateId, data: {} });
    expectFailure(res, 422, 'TEMPLATE_ERROR');
    expect(res.json.error.message).toMatch(/^ready\.expression does not parse: SyntaxError/);
  });

  it('records an async navigation as FAILED NAVIGATION_REFUSED, in the webhook body and the status, in our words', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/async', {
      html: '<meta http-equiv="refresh" content="0;url=about:blank"><p>x</p>',
      webhook: receiver.url('/nav'),
    });
    expect(res.status, res.text).toBe(200);
    const call = await receiver.waitForCall('/nav');
    expect(call.body).toMatchObject({ requestId: res.json.requestId, renderStatus: 'FAILED', error: { code: 'NAVIGATION_REFUSED' } });
    expect(JSON.stringify(call.body)).not.toMatch(AUTOMATION);
    const status = await svc.api.get(`/v1/pdf/status/${res.json.requestId}`);
    expect(status.json).toMatchObject({ renderStatus: 'FAILED', error: { code: 'NAVIGATION_REFUSED' } });
    expect(status.text).not.toMatch(AUTOMATION);
  });

  it('renders a plain page right after all of these', async () => {
    const res = await html({ html: '<p>still serving</p>' });
    expect(res.status, res.text).toBe(200);
    expect(await pdfText((await download(res.json.signedUrl as string)).bytes)).toContain('still serving');
  });
});
