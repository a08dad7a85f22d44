// Where the service's extra Chromium CPU per render goes (issue 13): the bare ceiling, the ceiling
// with ONE of the things the service does on the page added, and the service's renderer itself,
// interleaved (rounds of each) so that the load of a shared machine hits all alike. Each renders the
// shared invoice; Chromium's CPU is read from /proc (with that of exited renderer processes).
//
//   ceiling          a bare warm page (own context, A4 viewport, print media once): setContent + pdf
//   +guard           the network guard's context.route('**/*') on the context (every request to Node)
//   +cdp             a second DevTools session with Page.enable (warm-page.ts watches navigations with it)
//   +media           emulateMedia({media:'print'}) before every job (fitPage)
//   +settle          the readiness wait: lazy images, document.fonts.ready, every image's decode()
//   +service print   the service's print: Page.printToPDF answered inline, with every parameter of
//                    the default page setup (print-pdf.ts), instead of page.pdf's stream
//   +fresh           the reset: about:blank navigation, window.name, template runtime evaluated
//   +fresh+media     the reset, then emulateMedia again (the media is lost at the navigation)
//   renderer         createPlaywrightRenderer (the service's renderer in this process, no sandbox),
//                    --pages renders at once (default: 2, the service's, or the concurrency when more)
//   renderer+spare   the same with a spare warm page (sparePages: 1), so no job waits for a page's reset
//   supervised       the service's renderer in its host process as `nobody` (sandbox on), as the
//                    embedded and render-worker profiles run it when started as root
//
//   npx tsx bench/chromium-steps.bench.ts                 # 6 rounds of 5 jobs per variant
//   npx tsx bench/chromium-steps.bench.ts --rounds 10 --only ceiling,+fresh,renderer
//   npx tsx bench/chromium-steps.bench.ts --concurrency 2 # jobs at once per variant
//   npx tsx bench/chromium-steps.bench.ts --pages 3       # renders at once of the renderer variants
//   npx tsx bench/chromium-steps.bench.ts --alone         # each step alone in a loop, without the
//                                                         # 80 ms print around it (less noise for small steps):
//     setContent                 setContent of the invoice on the same document (what every job does)
//     setContent+media|settle|fresh|fresh-runtime   that, then the step (fresh-runtime: without the runtime eval)
//     pdf / pdf service / pdf service, stream   the loaded invoice printed: page.pdf with the ceiling's
//                                options / the service's print (inline) / page.pdf with the service's setup (stream)
//   npx tsx bench/chromium-steps.bench.ts --also-disable BackForwardCache,X  # adds `ceiling [off]` and
//                                                         # `+fresh [off]` on a second browser with these
//                                                         # Chromium features disabled too
//
// The machine is shared: compare rows of one run only; every figure is indicative.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { Renderer, RenderJob } from '@pressroom/core';
import { chromiumArgs, resolveChromiumPath, A4_VIEWPORT, createPlaywrightRenderer, createSupervisedRenderer } from '@pressroom/renderer';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright';
import { chromiumTicks } from './chromium-ticks.ts';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    per: { type: 'string', default: '5' },
    pages: { type: 'string' },
    concurrency: { type: 'string', default: '1' },
    only: { type: 'string' },
    alone: { type: 'boolean', default: false },
    'also-disable': { type: 'string' },
  },
});
const ROUNDS = Number(flags.rounds);
const PER = Number(flags.per);
const CONCURRENCY = Number(flags.concurrency);
const PAGES = Number(flags.pages ?? Math.max(2, CONCURRENCY));
const only = flags.only ? new Set(flags.only.split(',')) : undefined;
const html = readFileSync(new URL('../test/fixtures/invoice/invoice.html', import.meta.url), 'utf8');
const { pageRuntimeScript } = await import('../libs/renderer/src/eta-bundle.ts');
const { resolvePageSetup } = await import('../libs/renderer/src/page-setup.ts');
const { printPdf } = await import('../libs/renderer/src/print-pdf.ts');
const { settleFontsAndImages } = await import('../libs/renderer/src/readiness.ts');
const runtime = await pageRuntimeScript();
const executablePath = resolveChromiumPath();
const browser = await chromium.launch({ executablePath, args: chromiumArgs() });
const alsoDisable = flags['also-disable']?.split(',').filter(Boolean) ?? [];
const other = alsoDisable.length
  ? await chromium.launch({
      executablePath,
      args: chromiumArgs().map((a) => (a.startsWith('--disable-features=') ? `${a},${alsoDisable.join(',')}` : a)),
    })
  : undefined;

interface Opts {
  other?: boolean;
  guard?: boolean;
  cdp?: boolean;
  media?: boolean;
  settle?: boolean;
  pdfOptions?: boolean;
  fresh?: boolean;
  freshMedia?: boolean;
}

const serviceSetup = resolvePageSetup();
// The service's default setup as page.pdf options (A4, no margins, backgrounds, CSS @page wins).
const serviceStream = { format: 'A4', printBackground: true, preferCSSPageSize: true };

async function stepPage(o: Opts): Promise<{ context: BrowserContext; page: Page; cdp?: CDPSession }> {
  const context = await (o.other && other ? other : browser).newContext({
    viewport: A4_VIEWPORT,
    deviceScaleFactor: 1,
    ...(o.guard ? { serviceWorkers: 'block' } : {}),
  });
  if (o.guard) await context.route('**/*', (route) => route.abort());
  const page = await context.newPage();
  const cdp = o.cdp || o.pdfOptions ? await context.newCDPSession(page) : undefined;
  if (o.cdp && cdp) {
    cdp.on('Page.frameNavigated', () => {});
    await cdp.send('Page.enable');
  }
  await page.emulateMedia({ media: 'print' });
  return { context, page, ...(cdp ? { cdp } : {}) };
}

function stepJob({ page, cdp }: { page: Page; cdp?: CDPSession }, o: Opts): () => Promise<void> {
  return async () => {
    if (o.media) await page.emulateMedia({ media: 'print' });
    await page.setContent(html);
    if (o.settle) await settleFontsAndImages(page);
    if (o.pdfOptions && cdp) await printPdf(cdp, serviceSetup);
    else await page.pdf({ format: 'A4', printBackground: true });
    if (o.fresh) {
      await page.goto('about:blank');
      await page.evaluate((s) => {
        window.name = '';
        (0, eval)(s);
      }, runtime);
      if (o.freshMedia) await page.emulateMedia({ media: 'print' });
    }
  };
}

type Variant = { name: string; jobs: (() => Promise<void>)[]; ms: number[]; ticks: number; seconds: number; close?: () => Promise<void> };
const variants: Variant[] = [];
async function stepVariant(name: string, o: Opts) {
  if (only && !only.has(name) && !(o.other && only.has(name.replace(' [off]', '')))) return;
  const jobs: (() => Promise<void>)[] = [];
  for (let i = 0; i < CONCURRENCY; i++) jobs.push(stepJob(await stepPage(o), o));
  variants.push({ name, jobs, ms: [], ticks: 0, seconds: 0 });
}
async function rendererVariant(name: string, make: () => Promise<Renderer>) {
  if (only && !only.has(name)) return;
  const renderer = await make();
  const job: RenderJob = { source: { kind: 'html', html }, output: 'pdf', timeoutMs: 30_000, lane: 'sync' };
  const one = async () => {
    await renderer.render(job);
  };
  variants.push({
    name,
    jobs: Array.from({ length: CONCURRENCY }, () => one),
    ms: [],
    ticks: 0,
    seconds: 0,
    close: () => renderer.close(),
  });
}

if (flags.alone) {
  await aloneVariant('setContent', async (page) => {
    await page.setContent(html);
  });
  await aloneVariant('setContent+media', async (page) => {
    await page.setContent(html);
    await page.emulateMedia({ media: 'print' });
  });
  await aloneVariant('setContent+settle', async (page) => {
    await page.setContent(html);
    await settleFontsAndImages(page);
  });
  await aloneVariant('setContent+fresh', async (page) => {
    await page.setContent(html);
    await page.goto('about:blank');
    await page.evaluate((s) => {
      window.name = '';
      (0, eval)(s);
    }, runtime);
  });
  await aloneVariant('setContent+fresh-runtime', async (page) => {
    await page.setContent(html);
    await page.goto('about:blank');
    await page.evaluate(() => {
      window.name = '';
    });
  });
  await aloneVariant('pdf', async (page) => {
    await page.pdf({ format: 'A4', printBackground: true });
  });
  await aloneVariant('pdf service', async (page) => {
    await printPdf(await cdpOf(page), serviceSetup);
  });
  await aloneVariant('pdf service, stream', async (page) => {
    await page.pdf(serviceStream);
  });
}
const sessions = new Map<Page, CDPSession>();
async function cdpOf(page: Page): Promise<CDPSession> {
  const known = sessions.get(page);
  if (known) return known;
  const made = await page.context().newCDPSession(page);
  sessions.set(page, made);
  return made;
}
async function aloneVariant(name: string, step: (page: Page) => Promise<void>) {
  const { page } = await stepPage({ guard: true, cdp: true });
  await page.setContent(html);
  variants.push({ name, jobs: [() => step(page)], ms: [], ticks: 0, seconds: 0 });
}

if (!flags.alone) await stepVariant('ceiling', {});
if (!flags.alone) await stepVariant('+guard', { guard: true });
if (!flags.alone) await stepVariant('+cdp', { cdp: true });
if (!flags.alone) await stepVariant('+media', { media: true });
if (!flags.alone) await stepVariant('+settle', { settle: true });
if (!flags.alone) await stepVariant('+service print', { pdfOptions: true });
if (!flags.alone) await stepVariant('+fresh', { fresh: true });
if (!flags.alone) await stepVariant('+fresh+media', { fresh: true, freshMedia: true });
if (other) await stepVariant('ceiling [off]', { other: true });
if (other) await stepVariant('+fresh [off]', { other: true, fresh: true });
if (!flags.alone) await stepVariant('all steps', { guard: true, cdp: true, media: true, settle: true, pdfOptions: true, fresh: true });
const base = { executablePath, pages: PAGES, recycleAfter: 200, maxOutputBytes: 50_000_000 };
if (!flags.alone) await rendererVariant('renderer', () => createPlaywrightRenderer(base));
if (!flags.alone) await rendererVariant('renderer+spare', () => createPlaywrightRenderer({ ...base, sparePages: 1 }));
const nobody = (() => {
  try {
    return {
      uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })),
      gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' })),
    };
  } catch {
    return undefined;
  }
})();
if (!flags.alone && process.getuid?.() === 0 && nobody)
  await rendererVariant('supervised', () => createSupervisedRenderer({ ...base, user: nobody }));

async function chunk(v: Variant, n: number, record: boolean): Promise<void> {
  let left = n;
  await Promise.all(
    v.jobs.map(async (job) => {
      while (left > 0) {
        left--;
        const t = performance.now();
        await job();
        if (record) v.ms.push(performance.now() - t);
      }
    }),
  );
}

for (const v of variants) await chunk(v, 4, false); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const v of variants) {
    await sleep(150); // the last chunk's off-path resets finish before the count starts
    const before = chromiumTicks();
    const started = performance.now();
    await chunk(v, PER * CONCURRENCY, true);
    v.seconds += (performance.now() - started) / 1000;
    await sleep(150); // this chunk's resets count for it (every variant waits alike)
    v.ticks += chromiumTicks() - before;
  }
}
for (const v of variants) await v.close?.();
await browser.close();
await other?.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const cpuOf = (v: Variant) => (v.ticks * 10) / v.ms.length;
const ceiling = variants.find((v) => v.name === (flags.alone ? 'setContent' : 'ceiling'));
console.log(
  `Chromium steps, ${ROUNDS}×${PER * CONCURRENCY} interleaved jobs per variant at concurrency ${CONCURRENCY} (renderer: ${PAGES} at once), Chromium CPU from /proc, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}:`,
);
for (const v of variants) {
  const over = ceiling
    ? `  (${cpuOf(v) - cpuOf(ceiling) >= 0 ? '+' : ''}${(cpuOf(v) - cpuOf(ceiling)).toFixed(0)} over ${ceiling.name})`
    : '';
  console.log(
    `  ${v.name.padEnd(14)} ${(v.ms.length / v.seconds).toFixed(1).padStart(5)} jobs/s  p50 ${median(v.ms).toFixed(0).padStart(4)} ms   Chromium CPU ${cpuOf(v).toFixed(0).padStart(4)} ms/job${over}`,
  );
}
