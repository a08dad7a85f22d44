import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaywrightRenderer, type PlaywrightRenderer } from './index.ts';
import { memoryAssets } from './test-support/assets.ts';
import { htmlSource } from './test-support/fixtures.ts';
import { pdfText } from './test-support/poppler.ts';
import { FRAMED_STORAGE_KINDS, PROBE_READY, probePageHtml, readerSvg, writerSvg } from '../../../test/support/storage-probe.ts';

const probePage = (name: string) => htmlSource(probePageHtml(name));

// Nothing of one render may survive into the next one on the same warm page: tenant A's scripted
// SVG asset writes every kind of storage of the assets origin, tenant B's reads it back.
describe('Playwright renderer: nothing of one render survives into the next', () => {
  let renderer: PlaywrightRenderer;

  beforeAll(async () => {
    // One page, never recycled by count: every job runs on the page the previous one used.
    renderer = await createPlaywrightRenderer({ pages: 1, recycleAfter: 1_000, maxOutputBytes: 20_000_000 });
  });
  afterAll(async () => {
    await renderer?.close();
  });

  const renderText = async (page: ReturnType<typeof probePage>, assets: ReturnType<typeof memoryAssets>) =>
    pdfText((await renderer.render({ source: page, output: 'pdf', assets, ready: PROBE_READY, timeoutMs: 15_000 })).bytes);

  it('gives the next tenant none of the assets-origin storage the previous one wrote', async () => {
    const tenantA = memoryAssets({ 'probe.svg': { bytes: writerSvg('TENANT-A-SECRET'), contentType: 'image/svg+xml' } });
    const tenantB = memoryAssets({ 'probe.svg': { bytes: readerSvg(), contentType: 'image/svg+xml' } });

    for (let round = 0; round < 3; round++) {
      // Given tenant A's page framed its scripted SVG, which wrote every storage kind it could
      const written = await renderText(probePage('probe.svg'), tenantA);
      for (const kind of FRAMED_STORAGE_KINDS) expect(written, `tenant A could not write ${kind}`).toContain(kind);

      // When tenant B's page frames its own SVG under the same origin, on the same warm page
      const read = (await renderText(probePage('probe.svg'), tenantB)).replace(/\s+/g, '');

      // Then the reader ran and found nothing of tenant A's
      expect(read).toMatch(/^read:/);
      expect(read).not.toContain('TENANT-A-SECRET');
      for (const kind of FRAMED_STORAGE_KINDS) expect(read).toContain(`"${kind}":null`);
    }
  });

  it.each(['SharedWorker', 'Worker'])(
    'gives the next tenant nothing a %s of the previous one keeps writing after its page is gone',
    async (kind) => {
      // Given tenant A's SVG starts a worker of the assets origin that writes IndexedDB every millisecond
      const worker =
        'const put = () => { const o = indexedDB.open("probe", 1); o.onupgradeneeded = () => o.result.createObjectStore("kv");' +
        ' o.onsuccess = () => { const tx = o.result.transaction("kv", "readwrite"); tx.objectStore("kv").put("TENANT-A-SECRET", "probe");' +
        ' tx.oncomplete = () => o.result.close(); }; }; setInterval(put, 1); put();';
      const svg = new TextEncoder().encode(
        '<svg xmlns="http://www.w3.org/2000/svg"><script><![CDATA[' +
          `const url = URL.createObjectURL(new Blob([${JSON.stringify(worker)}], { type: 'text/javascript' }));` +
          `const w = new ${kind}(url); setTimeout(() => parent.postMessage('written:worker', '*'), 200);` +
          ']]></script></svg>',
      );
      const tenantA = memoryAssets({ 'probe.svg': { bytes: svg, contentType: 'image/svg+xml' } });
      const tenantB = memoryAssets({ 'probe.svg': { bytes: readerSvg(), contentType: 'image/svg+xml' } });
      expect(await renderText(probePage('probe.svg'), tenantA)).toContain('written:worker');

      // When tenant B reads on the same page, Then the worker's writes are gone
      const read = (await renderText(probePage('probe.svg'), tenantB)).replace(/\s+/g, '');
      expect(read).toContain('"indexedDB":null');
    },
  );

  it('lets no service worker register, so none can answer a later request', async () => {
    // Given a page of the assets origin that tries to register a service worker
    const svg = new TextEncoder().encode(
      '<svg xmlns="http://www.w3.org/2000/svg"><script><![CDATA[' +
        'Promise.resolve().then(() => navigator.serviceWorker.register("/sw.js"))' +
        '.then(() => parent.postMessage("sw registered", "*"), (e) => parent.postMessage("sw refused", "*"))' +
        ']]></script></svg>',
    );
    const assets = memoryAssets({
      'probe.svg': { bytes: svg, contentType: 'image/svg+xml' },
      'sw.js': {
        bytes: new TextEncoder().encode('self.onfetch = (e) => e.respondWith(new Response("SW-ANSWER"))'),
        contentType: 'text/javascript',
      },
    });

    // When it renders, Then the registration was refused
    expect(await renderText(probePage('probe.svg'), assets)).toContain('sw refused');
  });

  it('renders a plain page normally after the probes', async () => {
    const out = await renderer.render({ source: htmlSource('<p>plain</p>'), output: 'pdf', timeoutMs: 15_000 });
    expect(await pdfText(out.bytes)).toContain('plain');
  });
});
