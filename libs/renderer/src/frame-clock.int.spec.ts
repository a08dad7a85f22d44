import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaywrightRenderer, type PlaywrightRenderer } from './playwright-renderer.ts';
import { frameHeldMessage } from './render-failure.ts';
import { htmlSource } from './test-support/fixtures.ts';
import { pdfText } from './test-support/poppler.ts';
import { suiteRenderer } from './test-support/suite-renderer.ts';
import { suiteWarmPage } from './test-support/suite-warm-page.ts';

// The renderer's pages are quiet (quiet-page.ts): Chromium draws a frame of them only when their
// FrameClock asks. A script-free PDF is printed without any; a document that runs script gets
// frames at the display's pace while its job runs, so what it does in requestAnimationFrame (a
// chart library's drawing, an observer's callback) happens as in any browser.
describe('frames of a render', () => {
  const renderer = suiteRenderer();

  it("give a scripted document's requestAnimationFrame callbacks their frames before the print", async () => {
    // Given a document that draws its content two frames after it runs, and says when with a selector
    const html = `<p id="out">not drawn</p><script>
      requestAnimationFrame(() => requestAnimationFrame(() => {
        const out = document.getElementById('out');
        out.textContent = 'DRAWN IN A FRAME';
        out.setAttribute('data-drawn', '');
      }));
    </script>`;

    // When it is rendered to a PDF waiting for that selector
    const out = await renderer().render({
      source: htmlSource(html),
      output: 'pdf',
      ready: { selector: '#out[data-drawn]' },
      timeoutMs: 10_000,
    });

    // Then the PDF shows what the frame callback drew
    const text = await pdfText(out.bytes);
    expect(text).toContain('DRAWN IN A FRAME');
    expect(text).not.toContain('not drawn');
  });

  it('print a script-free document the same after a scripted one, with no frame asked for', async () => {
    // Given a scripted render just before on the same page (its clock started, then stopped)
    await renderer().render({
      source: htmlSource('<p>scripted</p><script>document.title = "x"</script>'),
      output: 'pdf',
      timeoutMs: 10_000,
    });

    // When a script-free document is rendered
    const out = await renderer().render({ source: htmlSource('<h1>Quiet invoice</h1><p>Total 42</p>'), output: 'pdf', timeoutMs: 10_000 });

    // Then it is printed whole
    expect((await pdfText(out.bytes)).replace(/\s+/g, ' ')).toContain('Quiet invoice Total 42');
  });
});

describe('frames of renders at once', () => {
  let renderer: PlaywrightRenderer | undefined;
  beforeAll(async () => {
    // A short hold limit, so that the looping document below is stopped in a second (default 15 s).
    renderer = await createPlaywrightRenderer({ pages: 2, recycleAfter: 200, maxOutputBytes: 20_000_000, frameHoldLimitMs: 1_000 });
  });
  afterAll(async () => {
    await renderer?.close();
  });

  it('give two jobs that need frames at the same time their frames, one at a time, without losing the browser', async () => {
    // Given documents that draw in a frame, rendered two at a time on two pages, as PDFs and PNGs
    const html = (n: number) =>
      `<div style="height: 1500px"><p id="out">not drawn</p></div><script>requestAnimationFrame(() => {
        const out = document.getElementById('out');
        out.textContent = 'DRAWN ${n}';
        out.setAttribute('data-drawn', '');
      });</script>`;
    const job = (n: number) =>
      renderer!.render({
        source: htmlSource(html(n)),
        output: n % 2 ? 'png' : 'pdf',
        ready: { selector: '#out[data-drawn]' },
        timeoutMs: 10_000,
      });

    // When 12 of them are rendered, two at a time
    const outputs = [];
    for (let n = 0; n < 12; n += 2) outputs.push(...(await Promise.all([job(n), job(n + 1)])));

    // Then every one is rendered, each PDF shows what its frame drew, and Chromium never went down
    expect(outputs.map((o) => o.contentType)).toEqual(Array.from({ length: 12 }, (_, n) => (n % 2 ? 'image/png' : 'application/pdf')));
    for (let n = 0; n < 12; n += 2) expect(await pdfText(outputs[n]!.bytes)).toContain(`DRAWN ${n}`);
    expect(renderer!.stats().browserLaunches).toBe(1);
    expect(renderer!.stats().replaced).toBe(0);
  });

  it('stop a document looping inside its frame once another render waits for a frame, and render the other one', async () => {
    // Given one tenant's document that loops forever inside an animation frame, with a long time limit
    const hostile = renderer!.render({
      source: htmlSource('<p>looping</p><script>requestAnimationFrame(() => { for (;;) {} });</script>'),
      output: 'pdf',
      ready: { selector: '#never' },
      timeoutMs: 30_000,
    });
    const hostileOutcome = hostile.then(
      () => 'rendered',
      (err: unknown) => err,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));

    // When another tenant's PNG, which needs a frame, is rendered meanwhile with a shorter limit
    const other = await renderer!.render({ source: htmlSource('<h1>Other tenant</h1>'), output: 'png', timeoutMs: 10_000 });

    // Then the PNG is made, and the looping document fails RENDER_TIMEOUT saying why, not at its own limit
    expect(other.contentType).toBe('image/png');
    expect(await hostileOutcome).toMatchObject({ code: 'RENDER_TIMEOUT', message: frameHeldMessage(1_000) });

    // And the renderer renders on, its page replaced
    const after = await renderer!.render({ source: htmlSource('<p>After</p>'), output: 'pdf', timeoutMs: 10_000 });
    expect(await pdfText(after.bytes)).toContain('After');
  });
});

describe('a quiet page', () => {
  const page = suiteWarmPage();

  /** How many animation frames the page's document saw in `ms`. */
  const framesIn = (ms: number) =>
    page().wp.page.evaluate(
      (span) =>
        new Promise<number>((resolve) => {
          let frames = 0;
          const count = () => {
            frames++;
            requestAnimationFrame(count);
          };
          requestAnimationFrame(count);
          setTimeout(() => resolve(frames), span);
        }),
      ms,
    );

  it('draws no frame until its clock starts, draws them while it runs, and none once it stops', async () => {
    const { wp } = page();
    await wp.page.setContent('<p>frames</p>');

    // Given the clock stopped, no frame comes
    expect(await framesIn(300)).toBe(0);

    // When it starts, frames come at about the display's pace (60 a second; at least a few here on a loaded machine)
    wp.frames.start();
    expect(await framesIn(300)).toBeGreaterThanOrEqual(3);

    // When it stops again, at most the frame already asked for comes
    wp.frames.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await framesIn(300)).toBe(0);
  });
});
