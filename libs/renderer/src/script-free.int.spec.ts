import { ASSET_ORIGIN } from '@pressroom/core';
import { describe, expect, it } from 'vitest';
import { memoryAssets } from './test-support/assets.ts';
import { htmlSource } from './test-support/fixtures.ts';
import { pngPixel, solidPng } from './test-support/png.ts';
import { pdfText } from './test-support/poppler.ts';
import { suiteRenderer } from './test-support/suite-renderer.ts';
import { suiteWarmPage } from './test-support/suite-warm-page.ts';
import { holdAfterJob, prepareForJob } from './warm-page.ts';

// Script-free jobs (isScriptFree: raw HTML with no sign of script) run with Chromium running no
// script of the document, and the page keeps their document instead of getting a fresh one
// after them (warm-page.ts, prepareForJob). One page, so every job here follows the one before.
describe('script-free jobs', () => {
  const renderer = suiteRenderer();

  const pdf = async (html: string, extra: object = {}) =>
    (await pdfText((await renderer().render({ source: htmlSource(html), output: 'pdf', timeoutMs: 15_000, ...extra })).bytes)).replace(
      /\s+/g,
      ' ',
    );

  it("print each document alone: the next one's replaces the last one's", async () => {
    // Given a script-free document rendered just before
    expect(await pdf('<h1>TENANT-A invoice</h1><p style="animation: spin 1s infinite">A-ONLY</p>')).toContain('A-ONLY');

    // When the next script-free document is rendered on the same page
    const text = await pdf('<h1>TENANT-B invoice</h1>');

    // Then its PDF shows it, and nothing of the one before
    expect(text).toContain('TENANT-B invoice');
    expect(text).not.toContain('TENANT-A');
    expect(text).not.toContain('A-ONLY');
  });

  it('keep <noscript> hidden: a document that has one is rendered with script on', async () => {
    // When a document with no script but a <noscript> fallback is rendered
    const text = await pdf('<p>with script</p><noscript>NOSCRIPT-SHOWN</noscript>');

    // Then the fallback is not printed, as in any browser with script on
    expect(text).toContain('with script');
    expect(text).not.toContain('NOSCRIPT-SHOWN');
  });

  it('leave nothing a later scripted document can read: it gets a fresh window', async () => {
    // Given script-free documents of one tenant, with timed elements, an image and a title
    const img = `data:image/png;base64,${Buffer.from(solidPng(300, 200, [200, 0, 0])).toString('base64')}`;
    await pdf(
      `<title>TENANT-A title</title><h1 elementtiming="TENANT-A-heading" id="TENANT-A-id">TENANT-A secret</h1>` +
        `<img elementtiming="TENANT-A-image" src="${img}">`,
    );
    await pdf('<p>TENANT-A second</p>');

    // When another tenant's scripted document looks at everything the window keeps
    const text = await pdf(`<p id="out"></p><script>
      const seen = [];
      for (const e of performance.getEntries()) seen.push(e.entryType + ':' + e.name + ':' + (e.identifier || '') + ':' + (e.id || ''));
      for (const type of ['element', 'largest-contentful-paint', 'layout-shift', 'paint']) {
        try {
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) seen.push(type + ':' + (e.identifier || '') + ':' + (e.id || '') + ':' + (e.element ? e.element.textContent : ''));
            document.getElementById('out').textContent = seen.join(' | ');
          }).observe({ type, buffered: true });
        } catch {}
      }
      seen.push('history:' + history.length, 'title:' + document.title, 'name:' + window.name);
      document.getElementById('out').textContent = seen.join(' | ');
    </script>`);

    // Then it finds no trace of the tenant before
    expect(text).toContain('history:1');
    expect(text).not.toContain('TENANT-A');
  });

  it("never hand one job's asset to the next job asking for the same name", async () => {
    // Given a script-free document that showed its tenant's red logo
    const logo = (rgb: [number, number, number]) =>
      memoryAssets({ 'logo.png': { bytes: solidPng(40, 40, rgb), contentType: 'image/png' } });
    const html = `<body style="margin:0"><img src="${ASSET_ORIGIN}/logo.png" width="40" height="40"></body>`;
    const first = await renderer().render({ source: htmlSource(html), output: 'png', timeoutMs: 15_000, assets: logo([255, 0, 0]) });
    expect(pngPixel(first.bytes, 20, 20).rgb).toEqual([255, 0, 0]);

    // When the next script-free document of another tenant asks for its own logo.png
    const second = await renderer().render({ source: htmlSource(html), output: 'png', timeoutMs: 15_000, assets: logo([0, 0, 255]) });

    // Then it shows its own, blue
    expect(pngPixel(second.bytes, 20, 20).rgb).toEqual([0, 0, 255]);
  });
});

// What makes the path safe is not the scan but Chromium: with the page prepared for a script-free
// job, no script of the document runs, whatever form it takes.
describe('a page prepared for a script-free job', () => {
  const page = suiteWarmPage();

  it('holds nothing running after the job: the document is emptied at the reset', async () => {
    const { wp, lifecycle } = page();
    // Given a script-free job's document that animates (without script: CSS and SVG)
    await prepareForJob(wp, true);
    await wp.page.setContent(
      '<style>@keyframes w { to { width: 700px } } div { animation: w 1s infinite alternate }</style><div>TENANT-A</div>' +
        '<svg><rect width="10" height="10"><animate attributeName="width" to="100" dur="1s" repeatCount="indefinite"/></rect></svg>',
    );
    expect(await wp.page.evaluate(() => document.getAnimations().length)).toBe(1);

    // When the job ends and the page keeps its window for the next script-free job
    holdAfterJob(wp, true);
    await lifecycle.reset(wp);

    // Then the page still has that window, but nothing of the document, and nothing animates
    expect(wp.holding).toBe(true);
    expect(
      await wp.page.evaluate(() => [document.body.innerHTML, document.getAnimations().length, document.querySelectorAll('animate').length]),
    ).toEqual(['', 0, 0]);
  });

  it('runs no script of the document, and scripts again once prepared for a scripted job', async () => {
    const { wp } = page();
    const probe = `<p id="p">untouched</p><script>document.getElementById('p').textContent = 'SCRIPT RAN'</script>
      <img src="data:," onerror="document.title = 'HANDLER RAN'">`;

    // When a document with a script and an event handler is loaded on a page prepared script-free
    await prepareForJob(wp, true);
    await wp.page.setContent(probe);
    const off = await wp.page.evaluate(() => [document.getElementById('p')!.textContent, document.title]);

    // Then neither ran; and on the same page prepared for a scripted job, both do
    expect(off).toEqual(['untouched', '']);
    await prepareForJob(wp, false);
    await wp.page.setContent(probe);
    await wp.page.waitForFunction(() => document.title === 'HANDLER RAN');
    expect(await wp.page.evaluate(() => document.getElementById('p')!.textContent)).toBe('SCRIPT RAN');
  });
});
