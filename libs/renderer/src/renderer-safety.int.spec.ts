import { RenderFailure } from '@pressroom/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaywrightRenderer, type PlaywrightRenderer } from './index.ts';
import { startCanary, type Canary } from './test-support/canary.ts';
import { htmlSource, templateSource } from './test-support/fixtures.ts';
import { compiledTemplateKey, compiledTemplates } from './compiled-templates.ts';
import { pdfPageTexts, pdfText } from './test-support/poppler.ts';

// Tenant templates and HTML are hostile until proven otherwise: these are the promises of the
// Renderer port (no Node, no local network, no files, a time limit, a size limit, isolation).
describe('Playwright renderer safety', () => {
  let renderer: PlaywrightRenderer;
  let canary: Canary;

  beforeAll(async () => {
    canary = await startCanary();
    // 'localhost' is allowed on purpose: loopback must stay blocked even when an operator lists it.
    renderer = await createPlaywrightRenderer({
      pages: 1,
      recycleAfter: 200,
      maxOutputBytes: 200_000,
      allowedHosts: ['localhost', '127.0.0.1'],
    });
  });
  afterAll(async () => {
    await renderer?.close();
    await canary?.close();
  });

  const pdfOf = async (source: ReturnType<typeof templateSource> | ReturnType<typeof htmlSource>) =>
    pdfText((await renderer.render({ source, output: 'pdf', timeoutMs: 15_000 })).bytes);

  it('evaluates template code in the page, where neither process nor require exists', async () => {
    // Given a template that looks for Node through the Function constructor and directly
    const source = templateSource(
      '<p>process=<%= it.constructor.constructor("return typeof process")() %></p>' +
        '<p>require=<%= typeof require %></p><p>global=<%= typeof global %></p>',
      {},
    );

    // When it renders, Then each probe printed "undefined"
    const text = await pdfOf(source);
    expect(text).toContain('process=undefined');
    expect(text).toContain('require=undefined');
    expect(text).toContain('global=undefined');
  });

  it.each([
    ['the Function constructor', '<%= it.constructor.constructor("return process")().env.HOME %>'],
    ['process.env', '<%= process.env.HOME %>'],
    ['require', '<% const fs = require("fs") %><%= fs.readFileSync("/etc/passwd", "utf8") %>'],
    ['globalThis.process', '<%= globalThis.process.env.HOME %>'],
  ])('fails cleanly with TEMPLATE_ERROR when template code reaches for Node through %s', async (_how, content) => {
    // Given template code that needs Node to work
    // When it renders
    const err = await renderer.render({ source: templateSource(content, {}), output: 'pdf', timeoutMs: 15_000 }).catch((e: unknown) => e);

    // Then it fails as a template error (nothing of Node exists in the page), and the next job renders
    expect(err).toBeInstanceOf(RenderFailure);
    expect(err).toMatchObject({ code: 'TEMPLATE_ERROR', message: expect.stringMatching(/ReferenceError|TypeError/) as unknown });
    expect(await pdfOf(templateSource('<p>healthy</p>'))).toContain('healthy');
  });

  it('gives dynamic import() nothing to load, from template code or from a page script', async () => {
    // Given a template that imports node:fs while it is evaluated, and a page script that tries again
    const source = templateSource(
      '<p id="t">pending</p><p id="s">pending</p>' +
        '<% import("node:fs").then(() => { window.tplResult = "fs loaded" }, () => { window.tplResult = "import refused" }) %>' +
        '<script>document.getElementById("t").textContent = "template: " + (window.tplResult || "refused before load");' +
        'import("node:fs").then(() => "fs loaded", () => "import refused").then((r) => { document.getElementById("s").textContent = "script: " + r })</script>',
      {},
    );

    // When it renders, waiting for the script's outcome
    const out = await renderer.render({
      source,
      output: 'pdf',
      ready: { expression: 'document.getElementById("s").textContent !== "pending"' },
      timeoutMs: 15_000,
    });

    // Then neither loaded anything
    const text = await pdfText(out.bytes);
    expect(text).toContain('script: import refused');
    expect(text).not.toContain('fs loaded');
  });

  it('blocks XMLHttpRequest and fetch to loopback from template code, with no hit on the canary', async () => {
    // Given template code that calls the canary synchronously and asynchronously
    const base = `http://127.0.0.1:${canary.port}`;
    const source = templateSource(
      `<% let sync; try { const x = new XMLHttpRequest(); x.open("GET", "${base}/xhr-sync", false); x.send(); sync = "xhr got " + x.responseText; }` +
        ` catch (e) { sync = "xhr blocked"; } %><p><%= sync %></p>` +
        `<% const a = new XMLHttpRequest(); a.open("GET", "${base}/xhr-async"); a.send(); fetch("${base}/fetch-tpl").catch(() => {}) %>` +
        `<% const b = new XMLHttpRequest(); b.open("GET", "https://localhost:${canary.port}/xhr-tls"); b.send(); %>`,
      {},
    );

    // When it renders, and one more render lets stragglers arrive
    const text = await pdfOf(source);
    await pdfOf(htmlSource('<p>after</p>'));

    // Then the synchronous call failed inside the page, and the canary saw nothing
    expect(text).toContain('xhr blocked');
    expect(text).not.toContain('CANARY-SECRET');
    expect(canary.hits()).toEqual({ requests: [], connections: 0, upgrades: 0, datagrams: 0 });
  });

  it('puts header and footer templates under the same rules as the body', async () => {
    // Given bands that try Node, the canary, a local file and an endless loop
    const base = `http://127.0.0.1:${canary.port}`;
    const body = '<p>body one</p><p style="break-before: page">body two</p>';
    const withBands = (header: string, footer?: string) => ({
      ...templateSource(body, {}),
      header,
      ...(footer === undefined ? {} : { footer }),
    });

    // When the header reaches for process, Then the render fails as a header template error
    await expect(
      renderer.render({
        source: withBands('<%= it.constructor.constructor("return process")().env.HOME %>'),
        output: 'pdf',
        timeoutMs: 15_000,
      }),
    ).rejects.toMatchObject({ code: 'TEMPLATE_ERROR', message: expect.stringMatching(/^header: ReferenceError/) as unknown });

    // When the footer loops forever, Then the render times out
    await expect(
      renderer.render({ source: withBands('<p>h</p>', '<% while (true) {} %>'), output: 'pdf', timeoutMs: 1_500 }),
    ).rejects.toMatchObject({
      code: 'RENDER_TIMEOUT',
    });

    // When the bands fetch the canary and frame /etc/passwd, Then the PDF has the bands, no file content, and no hit
    const nosy = await renderer.render({
      source: withBands(
        `<% fetch("${base}/header").catch(() => {}) %><img src="${base}/header-img">HEADER <%= typeof process %> <%= typeof require %>`,
        '<iframe src="file:///etc/passwd" width="400" height="40"></iframe>FOOTER',
      ),
      output: 'pdf',
      timeoutMs: 15_000,
    });
    const pages = await pdfPageTexts(nosy.bytes);
    expect(pages[1]).toContain('HEADER undefined undefined');
    expect(pages[1]).toContain('FOOTER');
    expect(pages.join('')).not.toMatch(/root:|nologin/);
    await pdfOf(htmlSource('<p>after</p>'));
    expect(canary.hits()).toEqual({ requests: [], connections: 0, upgrades: 0, datagrams: 0 });

    // ... and the renderer is healthy afterwards
    expect(await pdfOf(templateSource('<p>alive after bands</p>'))).toContain('alive after bands');
    await expect(renderer.ping()).resolves.toBeUndefined();
  });

  it('makes no request, connection, upgrade or datagram to a loopback server', async () => {
    // Given HTML and a template that try every way out to the canary on 127.0.0.1 / localhost
    const base = `http://127.0.0.1:${canary.port}`;
    const attempts =
      `<link rel="preconnect" href="${base}"><link rel="stylesheet" href="${base}/css">` +
      `<img src="${base}/canary"><img src="http://localhost:${canary.port}/by-name"><img src="https://localhost:${canary.port}/tls">` +
      `<iframe src="${base}/frame"></iframe>` +
      `<script>
        fetch('${base}/fetch').catch(() => {});
        navigator.sendBeacon('${base}/beacon', 'x');
        try { new WebSocket('ws://127.0.0.1:${canary.port}/ws'); } catch (e) {}
        try { const es = new EventSource('${base}/events'); } catch (e) {}
        const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${canary.udpPort}' }] });
        pc.createDataChannel('x');
        pc.createOffer().then((o) => pc.setLocalDescription(o));
      </script>`;

    // When both render (the template one also fetches from inside template code)
    await pdfOf(htmlSource(attempts));
    await pdfOf(templateSource(`<% fetch('${base}/from-template').catch(() => {}) %>${attempts}`));
    // ... and one more render gives stragglers (ICE gathering, beacons) time to show up
    await pdfOf(htmlSource('<p>after</p>'));

    // Then the canary saw nothing at all
    expect(canary.hits()).toEqual({ requests: [], connections: 0, upgrades: 0, datagrams: 0 });
  });

  it('exposes no automation binding to the page, and a call to one fails in the page only', async () => {
    // Given a page that lists Playwright's globals, then calls its binding with a payload that
    // Playwright cannot parse (which used to throw in this process, outside any handler)
    const probe =
      '<p id="o"></p><script>o.textContent = "seen=" + (Object.getOwnPropertyNames(window).filter((n) => /playwright|__pw/i.test(n)).join(",") || "none")' +
      ' + " binding=" + typeof window.__playwright__binding__ + " dispatch=" + typeof window.__pwWebSocketDispatch;' +
      ' try { __playwright__binding__("not json") } catch (e) {}</script>';

    // When it renders as HTML and from template code
    const text = await pdfOf(htmlSource(probe));
    const fromTemplate = await renderer
      .render({ source: templateSource('<% __playwright__binding__("not json") %>'), output: 'pdf', timeoutMs: 15_000 })
      .catch((e: unknown) => e);

    // Then the page saw nothing of Playwright, the template failed as its own error, and this process renders on
    expect(text).toContain('seen=none binding=undefined dispatch=undefined');
    expect(fromTemplate).toMatchObject({ code: 'TEMPLATE_ERROR', message: expect.stringContaining('ReferenceError') });
    expect(await pdfOf(htmlSource('<p>still here</p>'))).toContain('still here');
  });

  it('opens no WebSocket to loopback in any address form (the browser resolves nothing)', async () => {
    const p = canary.port;
    const urls = [
      `ws://127.0.0.1:${p}/`,
      `ws://[::1]:${p}/`,
      `ws://localhost:${p}/`,
      `ws://2130706433:${p}/`,
      `ws://0x7f000001:${p}/`,
      `ws://0.0.0.0:${p}/`,
    ];
    const text = await pdfOf(
      htmlSource(
        `<p id="o">ws:</p><script>for (const u of ${JSON.stringify(urls)}) { const w = new WebSocket(u); w.onopen = () => o.textContent += " OPEN"; }` +
          'const t = Date.now(); while (Date.now() - t < 300) {}</script>',
      ),
    );
    await pdfOf(htmlSource('<p>after</p>'));
    expect(text).not.toContain('OPEN');
    expect(canary.hits()).toEqual({ requests: [], connections: 0, upgrades: 0, datagrams: 0 });
  });

  it('does not leak local files into the output', async () => {
    // Given a page that embeds /etc/passwd every way it can
    const html =
      '<iframe src="file:///etc/passwd" width="600" height="300"></iframe>' +
      '<img src="file:///etc/passwd"><object data="file:///etc/passwd"></object>' +
      '<script>fetch("file:///etc/passwd").then(r => r.text()).then(t => document.body.append(t)).catch(() => {})</script>' +
      '<p>done</p>';

    // When it renders
    const text = await pdfOf(htmlSource(html));

    // Then nothing from the file shows in the PDF
    expect(text).toContain('done');
    expect(text).not.toMatch(/root:|nologin|\/bin\/(ba)?sh/);
  });

  it("prints a document whose scripts take apart the page's own document and event APIs", async () => {
    // Given a template and raw HTML that break what writing a document and waiting for its load
    // use in the page's world, before (the template's code) and while (a script) it is written
    const sabotage =
      'Document.prototype.open = Document.prototype.write = Document.prototype.close = function () {};' +
      ' EventTarget.prototype.addEventListener = function () {};' +
      " Object.defineProperty(document, 'readyState', { get: () => 'loading' });";
    const template = templateSource(`<% ${sabotage} %><p>Template printed anyway</p>`, {});
    const html = htmlSource(`<script>${sabotage}</script><p>HTML printed anyway</p>`);

    // When both render, Then each prints its own text, within its time limit
    const fromTemplate = await renderer.render({ source: template, output: 'pdf', timeoutMs: 10_000 });
    expect(await pdfText(fromTemplate.bytes)).toContain('Template printed anyway');
    const fromHtml = await renderer.render({ source: html, output: 'pdf', timeoutMs: 10_000 });
    expect(await pdfText(fromHtml.bytes)).toContain('HTML printed anyway');
  });

  it('rejects a broken template with TEMPLATE_ERROR and where it broke', async () => {
    // Given a template with a runtime error on line 3, and one with an unclosed tag
    const runtime = templateSource('<p>a</p>\n<p>b</p>\n<%= it.missing.deep %>\n', {});
    const unclosed = templateSource('<p>ok</p>\n<p><%= it.x </p>', { x: 1 });

    // When they render, Then both fail as template errors naming the line
    const runtimeErr = await renderer.render({ source: runtime, output: 'pdf', timeoutMs: 15_000 }).catch((e: unknown) => e);
    expect(runtimeErr).toBeInstanceOf(RenderFailure);
    expect(runtimeErr).toMatchObject({ code: 'TEMPLATE_ERROR' });
    expect((runtimeErr as Error).message).toMatch(/TypeError/);
    expect((runtimeErr as Error).message).toMatch(/line 3|>> 3\|/);
    const parseErr = await renderer.render({ source: unclosed, output: 'pdf', timeoutMs: 15_000 }).catch((e: unknown) => e);
    expect(parseErr).toMatchObject({ code: 'TEMPLATE_ERROR' });
    expect((parseErr as Error).message).toMatch(/unclosed tag at line 2 col 4/);
  });

  it('stops an endless template at its time limit, then renders the next job', async () => {
    // Given a template that never ends
    const endless = templateSource('<% while (true) {} %>', {});

    // When it renders with a 1.5 s limit
    const err = await renderer.render({ source: endless, output: 'pdf', timeoutMs: 1_500 }).catch((e: unknown) => e);

    // Then it fails with RENDER_TIMEOUT, and the (single-page) renderer serves the next job
    expect(err).toBeInstanceOf(RenderFailure);
    expect(err).toMatchObject({ code: 'RENDER_TIMEOUT' });
    expect(await pdfOf(templateSource('<p>alive <%= it.n %></p>', { n: 7 }))).toContain('alive 7');
    await expect(renderer.ping()).resolves.toBeUndefined();
  });

  it('stops a page that hangs after loading (a script loop in HTML), then renders the next job', async () => {
    // Given HTML whose script loops forever once the document has loaded
    const hang = htmlSource('<p>x</p><script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 0))</script>');

    // When it renders, Then it times out and the next job still succeeds
    await expect(renderer.render({ source: hang, output: 'png', timeoutMs: 1_500 })).rejects.toMatchObject({ code: 'RENDER_TIMEOUT' });
    expect(await pdfOf(htmlSource('<p>still alive</p>'))).toContain('still alive');
  });

  it('refuses output over maxOutputBytes with OUTPUT_TOO_LARGE and keeps working', async () => {
    // Given a document whose PNG is far larger than the 200 kB limit (random colours do not compress)
    const noisy = htmlSource(
      '<canvas id="c" width="794" height="1200"></canvas><script>' +
        'const c = document.getElementById("c").getContext("2d"); const img = c.createImageData(794, 1200);' +
        'for (let i = 0; i < img.data.length; i++) img.data[i] = (i % 4 === 3) ? 255 : Math.random() * 256;' +
        'c.putImageData(img, 0, 0);</script>',
    );

    // When it renders, Then it fails as too large, and a small job after it succeeds
    await expect(renderer.render({ source: noisy, output: 'png', timeoutMs: 15_000 })).rejects.toMatchObject({
      code: 'OUTPUT_TOO_LARGE',
    });
    expect(await pdfOf(htmlSource('<p>small</p>'))).toContain('small');
  });

  it("does not let one render's globals, prototypes, timers or window.name reach the next", async () => {
    // Given a render that leaves a global, a patched prototype, a timer and window.name behind
    await pdfOf(
      templateSource(
        '<% window.leaked = it.secret; Array.prototype.leak = it.secret; window.name = it.secret;' +
          ' setInterval(() => { document.body && document.body.insertAdjacentText("beforeend", "INJECTED") }, 1) %><p>a</p>',
        { secret: 'TENANT-A-SECRET' },
      ),
    );

    // When the next tenant's template renders on the same (only) page
    const text = await pdfOf(
      templateSource('<p>global=<%= typeof window.leaked %> proto=<%= typeof [].leak %> name=[<%= window.name %>]</p>', {}),
    );

    // Then it sees none of it
    expect(text).toContain('global=undefined proto=undefined name=[]');
    expect(text).not.toContain('TENANT-A-SECRET');
    expect(text).not.toContain('INJECTED');
  });

  it('closes popups, so a later job cannot find one by name and read what it carries', async () => {
    // Given a job that opens a named popup and encodes a value in its number of frames
    await pdfOf(
      htmlSource(
        '<script>const w = window.open("about:blank", "stash");' +
          ' for (let i = 0; i < 7; i++) w.document.body.appendChild(w.document.createElement("iframe"));</script><p>a</p>',
      ),
    );

    // When the next job looks the popup up by name
    const text = await pdfOf(
      htmlSource(
        '<p id="out"></p><script>const w = window.open("", "stash"); out.textContent = "frames=" + (w ? w.length : "none");</script>',
      ),
    );

    // Then it finds no trace of the first job's popup
    expect(text).not.toContain('frames=7');
    expect(text).toMatch(/frames=(0|none)/);
  });

  it('compiles a template version once per tenant, and never hands one tenant the body another tenant compiled', async () => {
    // Given a template version rendered for tenant A
    const source = templateSource('<p>Hello <%= it.name %></p>', { name: 'A' });
    const key = (tenantId: string) => compiledTemplateKey(tenantId, source);
    const render = async (tenantId: string, data: Record<string, unknown>) =>
      pdfText((await renderer.render({ source: { ...source, data }, output: 'pdf', timeoutMs: 15_000, tenantId })).bytes);
    expect(await render('tenant-a', { name: 'A' })).toContain('Hello A');

    // Then its compiled body is kept for A (a second render of A, other data, uses it)
    const body = compiledTemplates.get(key('tenant-a'));
    expect(body).toEqual(expect.any(String));
    expect(await render('tenant-a', { name: 'again' })).toContain('Hello again');
    expect(compiledTemplates.get(key('tenant-a'))).toBe(body);

    // When A's entry holds a body A's own pages could have tampered with
    compiledTemplates.set(key('tenant-a'), `return "<p>tampered by A</p>"`);

    // Then only A's renders run it; tenant B, with the identical template, compiles its own
    expect(await render('tenant-a', { name: 'A' })).toContain('tampered by A');
    const b = await render('tenant-b', { name: 'B' });
    expect(b).toContain('Hello B');
    expect(b).not.toContain('tampered');
  });
});
