import { RenderFailure } from '@pressroom/core';
import { describe, expect, it } from 'vitest';
import { suiteRenderer } from './test-support/suite-renderer.ts';
import { memoryAssets, NARROW_FONT } from './test-support/assets.ts';
import { htmlSource, templateSource } from './test-support/fixtures.ts';
import { pdfFonts, pdfPageGray, pdfText } from './test-support/poppler.ts';

// A render prints when the page is ready: fonts loaded, images decoded, and the template's own
// signal (selector, expression, network idle), all within the render's time limit.
describe('Playwright renderer readiness', () => {
  const renderer = suiteRenderer();

  it('waits for a chart a script draws 500 ms after load when told by an expression', async () => {
    // Given a template whose chart (an SVG with a label) is drawn after a timeout, then signalled
    const chart = templateSource(
      '<h1>Sales</h1><svg id="chart" width="400" height="200"></svg><script>' +
        'setTimeout(() => { const svg = document.getElementById("chart");' +
        ' svg.innerHTML = `<rect x="10" y="10" width="100" height="150" fill="#333"/><text x="10" y="190">Revenue <%= it.year %></text>`;' +
        ' window.chartReady = true; }, 500);</script>',
      { year: 2024 },
    );

    // When it renders with ready.expression
    const out = await renderer().render({
      source: chart,
      output: 'pdf',
      ready: { expression: 'window.chartReady === true' },
      timeoutMs: 15_000,
    });

    // Then the chart's label is in the PDF
    const text = await pdfText(out.bytes);
    expect(text).toContain('Sales');
    expect(text).toContain('Revenue 2024');
  });

  it('waits for a canvas drawn after a timeout when told by a selector', async () => {
    // Given a canvas painted black 500 ms after load, which then marks itself done
    const html =
      '<style>body { margin: 0 }</style><canvas id="c" width="794" height="1000"></canvas><script>' +
      'setTimeout(() => { const c = document.getElementById("c"); const g = c.getContext("2d");' +
      ' g.fillStyle = "#000"; g.fillRect(0, 0, 794, 1000); c.dataset.done = "yes"; }, 500);</script>';

    // When it renders with ready.selector
    const out = await renderer().render({
      source: htmlSource(html),
      output: 'pdf',
      ready: { selector: 'canvas[data-done]' },
      timeoutMs: 15_000,
    });

    // Then the printed canvas is black
    expect((await pdfPageGray(out.bytes, 1)).at(0.5, 0.3)).toBeLessThan(50);
  });

  it('waits for the network to be idle when asked', async () => {
    // Given a page whose script fetches an asset after load and writes what it got
    const html =
      '<p id="out">waiting</p><script>addEventListener("load", () => setTimeout(() =>' +
      ' fetch("https://assets.pressroom.invalid/note.txt").then((r) => r.text()).then((t) => { document.getElementById("out").textContent = t; }), 0));</script>';
    const assets = memoryAssets({ 'note.txt': { bytes: Buffer.from('NOTE-FROM-ASSET'), contentType: 'text/plain' } });

    // When it renders with ready.networkIdle
    const out = await renderer().render({
      source: htmlSource(html),
      output: 'pdf',
      ready: { networkIdle: true },
      assets,
      timeoutMs: 15_000,
    });

    // Then the fetched text is printed
    expect(await pdfText(out.bytes)).toContain('NOTE-FROM-ASSET');
  });

  it('waits for web fonts and images before printing, with no signal at all', async () => {
    // Given a page whose script adds an image (an asset served after a delay) once loaded
    const slowPng = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==', 'base64');
    const assets = {
      asked: 0,
      async get(name: string) {
        this.asked++;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return name === 'px.png' ? { bytes: slowPng, contentType: 'image/png' } : undefined;
      },
    };
    const html =
      '<style>body { margin: 0 } img { width: 794px; height: 600px; display: block }</style>' +
      '<img src="https://assets.pressroom.invalid/px.png"><p>after image</p>';

    // When it renders
    const out = await renderer().render({ source: htmlSource(html), output: 'pdf', assets, timeoutMs: 15_000 });

    // Then the image was fetched and is printed (a black pixel stretched over the top of the page)
    expect(assets.asked).toBe(1);
    expect((await pdfPageGray(out.bytes, 1)).at(0.5, 0.2)).toBeLessThan(50);
  });

  it('prints a script-free document in its slow web font', async () => {
    // Given raw HTML with no script whose @font-face is an asset served after a delay
    const assets = {
      asked: [] as string[],
      async get(name: string) {
        this.asked.push(name);
        await new Promise((resolve) => setTimeout(resolve, 400));
        return name === 'Brand.ttf' ? { bytes: NARROW_FONT.bytes, contentType: 'font/ttf' } : undefined;
      },
    };
    const html =
      '<style>@font-face { font-family: Brand; src: url(https://assets.pressroom.invalid/Brand.ttf) format("truetype") }' +
      ' p { font-family: Brand, serif }</style><p>Set in the slow brand font</p>';

    // When it renders
    const out = await renderer().render({ source: htmlSource(html), output: 'pdf', assets, timeoutMs: 15_000 });

    // Then the text is printed in the brand font, embedded, not in the fallback
    expect(assets.asked).toEqual(['Brand.ttf']);
    const fonts = await pdfFonts(out.bytes);
    expect(fonts.map((f) => f.name).join(' ')).toContain(`+${NARROW_FONT.pdfName}`);
    expect(await pdfText(out.bytes)).toContain('Set in the slow brand font');
  });

  it('fails with RENDER_TIMEOUT naming the condition when the signal never comes, then renders the next job', async () => {
    // Given a page that never signals
    const source = htmlSource('<p>never ready</p>');

    // When it renders with an expression and a 1.5 s limit, and with a selector
    const byExpression = await renderer()
      .render({ source, output: 'pdf', ready: { expression: 'window.neverSet === true' }, timeoutMs: 1_500 })
      .catch((e: unknown) => e);
    const bySelector = await renderer()
      .render({ source, output: 'pdf', ready: { selector: '#missing' }, timeoutMs: 1_500 })
      .catch((e: unknown) => e);

    // Then both time out and say what they waited for
    expect(byExpression).toBeInstanceOf(RenderFailure);
    expect(byExpression).toMatchObject({ code: 'RENDER_TIMEOUT', message: expect.stringContaining('ready.expression') as unknown });
    expect(bySelector).toMatchObject({ code: 'RENDER_TIMEOUT', message: expect.stringContaining('#missing') as unknown });
    expect(
      await pdfText((await renderer().render({ source: htmlSource('<p>next</p>'), output: 'pdf', timeoutMs: 15_000 })).bytes),
    ).toContain('next');
  });

  it('fails a script-free document whose image never arrives with RENDER_TIMEOUT, then renders the next job', async () => {
    // Given raw HTML with no script whose image is an asset that never answers
    const assets = { get: () => new Promise<undefined>(() => {}) };
    const html = '<p>waiting</p><img src="https://assets.pressroom.invalid/never.png">';

    // When it renders with a 1.5 s limit
    const failure = await renderer()
      .render({ source: htmlSource(html), output: 'pdf', assets, timeoutMs: 1_500 })
      .catch((e: unknown) => e);

    // Then it times out, and the next job on the renderer prints
    expect(failure).toBeInstanceOf(RenderFailure);
    expect(failure).toMatchObject({ code: 'RENDER_TIMEOUT' });
    expect(
      await pdfText(
        (await renderer().render({ source: htmlSource('<p>after the stuck one</p>'), output: 'pdf', timeoutMs: 15_000 })).bytes,
      ),
    ).toContain('after the stuck one');
  });

  it('refuses a selector or expression that does not parse with TEMPLATE_ERROR', async () => {
    // Given signals that cannot be parsed
    const source = htmlSource('<p>x</p>');

    // When they render, Then both are template errors
    await expect(renderer().render({ source, output: 'pdf', ready: { selector: 'div[' }, timeoutMs: 15_000 })).rejects.toMatchObject({
      code: 'TEMPLATE_ERROR',
      message: expect.stringContaining('ready.selector') as unknown,
    });
    await expect(
      renderer().render({ source, output: 'pdf', ready: { expression: 'window.a ===' }, timeoutMs: 15_000 }),
    ).rejects.toMatchObject({
      code: 'TEMPLATE_ERROR',
      message: expect.stringContaining('ready.expression') as unknown,
    });
  });
});
