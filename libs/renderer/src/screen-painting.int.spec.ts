import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs } from './chromium-args.ts';
import { resolveChromiumPath } from './chromium-path.ts';
import { createPlaywrightRenderer, type PlaywrightRenderer } from './playwright-renderer.ts';
import { htmlSource, invoice } from './test-support/fixtures.ts';
import { decodePng } from './test-support/png.ts';
import { pdfText } from './test-support/poppler.ts';

// The renderer's pages paint nothing for the screen (paintNothingOnScreen, warm-page.ts): their
// visible area is one pixel, which only Chromium knows. A document must not be able to tell, and
// what it prints or shows must be what an ordinary page of the sheet's size makes.
const WHAT_THE_PAGE_SEES = `<p id="seen"></p><div id="box" style="width:100%"></div><script>
  const vv = window.visualViewport;
  let visible = 'none';
  new IntersectionObserver((entries) => { visible = String(entries[0].isIntersecting); report(); window.seenReady = true; }).observe(document.getElementById('box'));
  function report() {
    document.getElementById('seen').textContent = [
      'inner=' + innerWidth + 'x' + innerHeight, 'outer=' + outerWidth + 'x' + outerHeight,
      'screen=' + screen.width + 'x' + screen.height + ',' + screen.orientation.type, 'dpr=' + devicePixelRatio,
      'visual=' + vv.width + 'x' + vv.height + '@' + vv.scale, 'box=' + document.getElementById('box').clientWidth,
      'portrait=' + matchMedia('(orientation: portrait)').matches, 'intersecting=' + visible,
    ].join(' ');
  }
  report();
</script>`;

const READY = 'window.seenReady === true';

describe('pages that paint nothing for the screen', () => {
  let renderer: PlaywrightRenderer;
  let browser: Browser;

  beforeAll(async () => {
    renderer = await createPlaywrightRenderer({ pages: 1, recycleAfter: 200, maxOutputBytes: 20_000_000 });
    browser = await chromium.launch({ executablePath: resolveChromiumPath(), args: chromiumArgs() });
  });
  afterAll(async () => {
    await renderer?.close();
    await browser?.close();
  });

  /** An ordinary page of the sheet's size in print media, as a user's own Playwright would have it. */
  async function ordinaryPage(viewport: { width: number; height: number }): Promise<Page> {
    const page = await (await browser.newContext({ viewport })).newPage();
    await page.emulateMedia({ media: 'print' });
    return page;
  }

  async function seenIn(pdf: Uint8Array): Promise<string> {
    const text = (await pdfText(pdf)).replace(/\s+/g, ' ');
    return /inner=.*intersecting=\w+/.exec(text)?.[0] ?? text;
  }

  it('show a document the sheet as its viewport and screen, as an ordinary page does, job after job', async () => {
    // Given what an ordinary page of an A4 sheet and of a Letter sheet shows the document
    // (an intersection observer reports at the next frame: each waits for it)
    const a4 = await ordinaryPage({ width: 794, height: 1123 });
    await a4.setContent(WHAT_THE_PAGE_SEES);
    await a4.waitForFunction(READY);
    const letter = await ordinaryPage({ width: 816, height: 1056 });
    await letter.setContent(WHAT_THE_PAGE_SEES);
    await letter.waitForFunction(READY);
    const expected = { a4: await seenIn(await a4.pdf()), letter: await seenIn(await letter.pdf()) };
    expect(expected.a4).toContain('inner=794x1123');
    expect(expected.a4).toContain('intersecting=true');

    // When the renderer prints it on A4, on Letter (a resize), then on A4 again (each on a fresh document)
    const job = (format?: 'Letter') => ({
      source: htmlSource(WHAT_THE_PAGE_SEES),
      output: 'pdf' as const,
      timeoutMs: 15_000,
      ready: { expression: READY },
      ...(format ? { pdfParams: { format } } : {}),
    });
    const seen = [await renderer.render(job()), await renderer.render(job('Letter')), await renderer.render(job())];

    // Then each document saw exactly what the ordinary page showed it
    expect(await Promise.all(seen.map((out) => seenIn(out.bytes)))).toEqual([expected.a4, expected.letter, expected.a4]);
  });

  it('capture the same pixels as an ordinary page, for a document shorter and longer than the sheet', async () => {
    for (const html of [`<body style="background:linear-gradient(#c33,#33c)"><h1>One sheet</h1></body>`, invoice.html]) {
      // Given an ordinary page's full capture of the document, in the call the renderer makes
      const page = await ordinaryPage({ width: 794, height: 1123 });
      await page.setContent(html);
      const cdp = await page.context().newCDPSession(page);
      const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
      const height = Math.max(Math.ceil(cssContentSize.height), 1123);
      const { data } = await cdp.send('Page.captureScreenshot', {
        format: 'png',
        clip: { x: 0, y: 0, width: 794, height, scale: 1 },
        captureBeyondViewport: height > 1123,
        optimizeForSpeed: true,
      });
      const ordinary = decodePng(Buffer.from(data, 'base64'));

      // When the renderer makes the PNG
      const ours = decodePng((await renderer.render({ source: htmlSource(html), output: 'png', timeoutMs: 15_000 })).bytes);

      // Then both have the same size and the same pixels
      expect({ width: ours.width, height: ours.height }).toEqual({ width: ordinary.width, height: ordinary.height });
      expect(Buffer.compare(ours.rgba, ordinary.rgba)).toBe(0);
    }
  });
});
