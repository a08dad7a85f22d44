import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { RenderFailure } from '@pressroom/core';
import { waitFor } from '@pressroom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisedRenderer, type SupervisedRenderer } from './index.ts';
import { memoryAssets, NARROW_FONT } from './test-support/assets.ts';
import { htmlSource, templateSource } from './test-support/fixtures.ts';
import { pdfFonts, pdfText } from './test-support/poppler.ts';

const endless = htmlSource('<p>busy</p><script>while (true) {}</script>');

/** Pids of the processes whose parent is `ppid` (from /proc). */
function childrenOf(ppid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) pids.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return pids;
}
const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
const cmdlineOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const hostDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith('pressroom-renderer-'));

// The renderer in its own process: what happens to the renderer stays in that process.
describe('supervised renderer (renderer host in a child process)', () => {
  let renderer: SupervisedRenderer;

  beforeAll(async () => {
    // Pages recycled after every second job, so the replacement count below moves.
    renderer = await createSupervisedRenderer({ pages: 1, recycleAfter: 2, maxOutputBytes: 20_000_000, graceMs: 3_000 });
  });
  afterAll(async () => {
    await renderer?.close();
  });

  it('renders templates with the tenant assets answered over the channel', async () => {
    // Given a template whose text uses a font from the job's assets
    const assets = memoryAssets({ 'Brand.ttf': { bytes: NARROW_FONT.bytes, contentType: 'font/ttf' } });
    const page =
      '<style>@font-face { font-family: Brand; src: url(https://assets.pressroom.invalid/Brand.ttf) }' +
      ' p { font-family: Brand }</style><p>Hello <%= it.who %></p>';

    // When it renders in the host
    const out = await renderer.render({ source: templateSource(page, { who: 'IPC' }), output: 'pdf', assets, timeoutMs: 15_000 });

    // Then the PDF has the text, and the font the supervisor handed over is embedded
    expect(await pdfText(out.bytes)).toContain('Hello IPC');
    expect(assets.asked).toEqual(['Brand.ttf']);
    expect((await pdfFonts(out.bytes)).some((f) => f.name.endsWith(`+${NARROW_FONT.pdfName}`) && f.embedded)).toBe(true);
  });

  it('passes the renderer’s own failures through with their code', async () => {
    const err = await renderer
      .render({ source: templateSource('<%= it.a.b %>'), output: 'pdf', timeoutMs: 15_000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderFailure);
    expect(err).toMatchObject({ code: 'TEMPLATE_ERROR' });
  });

  it('fails the render in flight with RENDER_CRASHED when the host dies, and renders the next job in a new host', async () => {
    // Given a render in progress
    const before = renderer.stats();
    const doomed = renderer.render({ source: endless, output: 'pdf', timeoutMs: 30_000 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 500));

    // When the host process is killed
    process.kill(before.hostPid as number, 'SIGKILL');

    // Then that render fails as crashed, and a new host renders the next job
    expect(await doomed).toMatchObject({ name: 'RenderFailure', code: 'RENDER_CRASHED' });
    const out = await renderer.render({ source: htmlSource('<p>after the crash</p>'), output: 'pdf', timeoutMs: 30_000 });
    expect(await pdfText(out.bytes)).toContain('after the crash');
    const after = renderer.stats();
    expect(after.hostPid).not.toBe(before.hostPid);
    expect(after.hostCrashes).toBe(before.hostCrashes + 1);
  });

  it('kills a host that leaves a job unanswered past its limit plus the grace, and serves on', async () => {
    // Given a host whose event loop will not answer (stopped, as a wedged process would be)
    const wedged = renderer.stats().hostPid as number;
    const job = renderer.render({ source: htmlSource('<p>x</p>'), output: 'pdf', timeoutMs: 1_000 }).catch((e: unknown) => e);
    process.kill(wedged, 'SIGSTOP');

    // When the job's limit (1 s) and the grace (3 s) pass, Then the job fails as crashed
    expect(await job).toMatchObject({ code: 'RENDER_CRASHED', message: expect.stringContaining('stopped answering') });
    // ... the stopped host is gone, and a new one renders
    await waitFor(() => !existsSync(`/proc/${wedged}`) || readFileSync(`/proc/${wedged}/stat`, 'utf8').includes(') Z'), {
      timeoutMs: 10_000,
      description: 'the wedged host to be killed',
    });
    const out = await renderer.render({ source: htmlSource('<p>after the wedge</p>'), output: 'pdf', timeoutMs: 30_000 });
    expect(await pdfText(out.bytes)).toContain('after the wedge');
  });

  it('counts the pages its hosts replaced (pressroom_page_pool_replacements_total), after host restarts too', async () => {
    // Given a renderer whose host was replaced by the tests above, and pages recycled after two jobs
    const before = renderer.stats().pagesReplaced;

    // When three jobs render on its one page
    for (const n of [1, 2, 3]) {
      const out = await renderer.render({ source: htmlSource(`<p>job ${n}</p>`), output: 'pdf', timeoutMs: 30_000 });
      expect(await pdfText(out.bytes)).toContain(`job ${n}`);
    }

    // Then the page was replaced along the way, and the count says so (it never went back)
    expect(renderer.stats().pagesReplaced).toBeGreaterThanOrEqual(before + 1);
  });

  it('gives the host none of this process’s environment (no secrets reach the renderer)', async () => {
    const env = readFileSync(`/proc/${renderer.stats().hostPid}/environ`, 'utf8').split('\0');
    expect(env.some((e) => e.startsWith('PRESSROOM_SECRET') || e.startsWith('S3_') || e.startsWith('KAFKA'))).toBe(false);
    expect(env.find((e) => e.startsWith('TMPDIR='))).toMatch(/pressroom-renderer-/);
  });
});

describe('supervised renderer as an unprivileged user (issue 7 point 8)', () => {
  it('runs the host and Chromium as that user with the sandbox on, and removes the host directory afterwards', async () => {
    // Given the service runs as root here, and `nobody` exists on every Linux
    expect(process.getuid?.()).toBe(0);
    let hostDir: string | undefined;
    const renderer = await createSupervisedRenderer({
      pages: 1,
      recycleAfter: 200,
      maxOutputBytes: 5_000_000,
      user: { uid: 65534, gid: 65534 },
    });
    try {
      // When it renders
      const out = await renderer.render({ source: htmlSource('<p>sandboxed</p>'), output: 'pdf', timeoutMs: 30_000 });
      expect(await pdfText(out.bytes)).toContain('sandboxed');

      // Then the host and its browser run as nobody, and Chromium was started without --no-sandbox
      const host = renderer.stats().hostPid as number;
      expect(renderer.stats().sandbox).toBe(true);
      expect(uidOf(host)).toBe(65534);
      const browsers = childrenOf(host).filter((pid) => cmdlineOf(pid)[0]?.includes('chromium'));
      expect(browsers.length).toBeGreaterThan(0);
      // This host's own directory (other test files may run renderers of their own meanwhile)
      const profile = cmdlineOf(browsers[0]!).find((a) => a.startsWith('--user-data-dir=')) ?? '';
      hostDir = hostDirs().find((d) => profile.includes(`/${d}/`) || profile.endsWith(`/${d}`));
      expect(hostDir).toBeDefined();
      for (const pid of browsers) {
        expect(uidOf(pid)).toBe(65534);
        expect(cmdlineOf(pid)).not.toContain('--no-sandbox');
        // ... with its profile inside the host's private directory
        expect(cmdlineOf(pid).find((a) => a.startsWith('--user-data-dir='))).toMatch(/pressroom-renderer-/);
      }
    } finally {
      await renderer.close();
    }
    // ... and the private directory (profile, cache, temporary files) is gone once it closed
    await waitFor(() => !hostDirs().includes(hostDir!), {
      timeoutMs: 10_000,
      description: 'the host directory to be removed',
    });
  });
});
