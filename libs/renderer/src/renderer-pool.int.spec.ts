import { execFileSync } from 'node:child_process';
import { waitFor } from '@pressroom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlaywrightRenderer, type PlaywrightRenderer } from './index.ts';
import { htmlSource, templateSource } from './test-support/fixtures.ts';
import { pdfText } from './test-support/poppler.ts';

// The pool's promises with the real browser: lanes, recycling, and surviving a dead Chromium.
describe('Playwright renderer pool', () => {
  let renderer: PlaywrightRenderer | undefined;

  afterEach(async () => {
    await renderer?.close();
    renderer = undefined;
  });

  it('gives a freed page to waiting sync jobs before async ones', async () => {
    // Given a one-page renderer busy with a job that holds its page until we let it go
    renderer = await createPlaywrightRenderer({ pages: 1, recycleAfter: 200, maxOutputBytes: 10_000_000 });
    const r = renderer;
    const finished: string[] = [];
    const job = (name: string, lane: 'sync' | 'async') =>
      r.render({ source: htmlSource(`<p>${name}</p>`), output: 'pdf', timeoutMs: 15_000, lane }).then(() => finished.push(name));
    const blocker = r.render({
      source: templateSource('<% const until = Date.now() + 400; while (Date.now() < until) {} %><p>blocker</p>'),
      output: 'pdf',
      timeoutMs: 15_000,
    });
    await waitFor(() => r.stats().busy === 1, { timeoutMs: 5_000, description: 'the blocker to hold the page' });

    // When two async jobs queue, then two sync jobs
    const queued = [job('async-1', 'async'), job('async-2', 'async'), job('sync-1', 'sync'), job('sync-2', 'sync')];
    expect(r.stats()).toMatchObject({ waitingSync: 2, waitingAsync: 2 });
    await blocker;
    await Promise.all(queued);

    // Then the sync jobs ran first, each lane in arrival order
    expect(finished).toEqual(['sync-1', 'sync-2', 'async-1', 'async-2']);
  });

  it('replaces a page after recycleAfter renders and keeps rendering', async () => {
    // Given pages recycled after every second render
    renderer = await createPlaywrightRenderer({ pages: 1, recycleAfter: 2, maxOutputBytes: 10_000_000 });

    // When five jobs run one after the other
    const texts: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const out = await renderer.render({ source: templateSource('<p>job <%= it.i %></p>', { i }), output: 'pdf', timeoutMs: 15_000 });
      texts.push((await pdfText(out.bytes)).trim());
    }

    // Then every job rendered, and the page was replaced twice along the way
    expect(texts).toEqual(['job 1', 'job 2', 'job 3', 'job 4', 'job 5']);
    const r = renderer;
    await waitFor(() => r.stats().replaced === 2, { timeoutMs: 5_000, description: 'two replacements' });
  });

  it('relaunches Chromium after it dies and renders again', async () => {
    // Given a working renderer
    renderer = await createPlaywrightRenderer({ pages: 2, recycleAfter: 200, maxOutputBytes: 10_000_000 });
    const r = renderer;
    await r.render({ source: htmlSource('<p>before</p>'), output: 'pdf', timeoutMs: 15_000 });
    expect(r.stats().browserLaunches).toBe(1);

    // When its browser process is killed
    killOurChromium();
    await waitFor(() => !r.stats().browserConnected, { timeoutMs: 10_000, description: 'the browser to disconnect' });

    // Then the next render succeeds on a new browser, and ping is healthy again
    const out = await r.render({ source: htmlSource('<p>after the crash</p>'), output: 'pdf', timeoutMs: 15_000 });
    expect(await pdfText(out.bytes)).toContain('after the crash');
    await expect(r.ping()).resolves.toBeUndefined();
    expect(r.stats().browserLaunches).toBe(2);
  });

  it('fails a render whose Chromium dies under it as RENDER_CRASHED (tried again by the worker), not RENDER_ERROR', async () => {
    // Given a render in progress (its page script keeps it loading for 3 s)
    renderer = await createPlaywrightRenderer({ pages: 1, recycleAfter: 200, maxOutputBytes: 10_000_000 });
    const r = renderer;
    const job = r.render({
      source: htmlSource('<script>const until = Date.now() + 3000; while (Date.now() < until) {}</script><p>slow</p>'),
      output: 'pdf',
      timeoutMs: 15_000,
    });
    const outcome = job.catch((err: unknown) => err);
    await waitFor(() => r.stats().busy === 1, { timeoutMs: 5_000, description: 'the render to hold the page' });
    await new Promise((resolve) => setTimeout(resolve, 300));

    // When its browser process is killed
    killOurChromium();

    // Then the render fails as a crash of the renderer, and the next one renders on a new browser
    expect(await outcome).toMatchObject({ code: 'RENDER_CRASHED' });
    const out = await r.render({ source: htmlSource('<p>after</p>'), output: 'pdf', timeoutMs: 15_000 });
    expect(await pdfText(out.bytes)).toContain('after');
  });

  it('rejects jobs after close, and ping fails', async () => {
    // Given a closed renderer
    const r = await createPlaywrightRenderer({ pages: 1, recycleAfter: 200, maxOutputBytes: 10_000_000 });
    await r.close();

    // When a job arrives, Then it fails as a render error, and ping rejects
    await expect(r.render({ source: htmlSource('<p>x</p>'), output: 'pdf', timeoutMs: 5_000 })).rejects.toMatchObject({
      code: 'RENDER_ERROR',
    });
    await expect(r.ping()).rejects.toThrow();
  });
});

/** SIGKILLs the Chromium browser process this test process launched (its direct child), nothing else. */
function killOurChromium(): void {
  const children = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm?.startsWith('chromium') || comm?.startsWith('headless_shell'));
  expect(children.length).toBe(1);
  process.kill(Number(children[0]![0]), 'SIGKILL');
}
