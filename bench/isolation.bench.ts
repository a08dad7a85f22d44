// What isolating one job from the next costs in Chromium CPU and latency, per job, for each idea
// tried in issue 13, interleaved (rounds of each) so that the load of a shared machine hits all alike.
// Every variant renders the shared invoice (setContent + page.pdf) on a warm page.
//
//   ceiling          setContent + pdf, nothing else (no isolation: the bare limit)
//   fresh+runtime    about:blank navigation, template runtime evaluated, media re-emulated (before issue 13)
//   fresh            about:blank navigation only (the runtime installed only for template jobs)
//   fresh+init       about:blank navigation, the runtime installed by Chromium from a new-document
//                    script added once per page (Page.addScriptToEvaluateOnNewDocument; the service's)
//   new page         a new page in the same context per job (the old one closed)
//   new context      a new BrowserContext (guarded, as warm-page.ts opens it) per job
//   job navigation   no reset after the job: the next job's HTML is itself a navigation (served by a
//                    route, sandboxed by CSP so its origin is opaque), replacing the last document
//   job nav+freeze   the same, the page frozen between jobs (Page.setWebLifecycleState), so the last
//                    job's timers cannot run while the page waits
//
//   npx tsx bench/isolation.bench.ts             # 8 rounds of 5 jobs per variant (about 2 minutes)
//   npx tsx bench/isolation.bench.ts --rounds 20
//   npx tsx bench/isolation.bench.ts --render-document   # Chromium's RenderDocument on (before issue 13)
//   npx tsx bench/isolation.bench.ts --chromium-arg=--disable-features=X  # replaces the service's list
//   npx tsx bench/isolation.bench.ts --only ceiling,fresh+runtime,fresh+init   # some variants only
//   npx tsx bench/isolation.bench.ts --no-source-maps   # stack traces unmapped, as in the renderer host
//
// Node CPU is this process's (Playwright's client and server: what the renderer host spends per job).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chromiumArgs, documentStartScript, resolveChromiumPath, A4_VIEWPORT, PLAYWRIGHT_DISABLED_FEATURES } from '@pressroom/renderer';
import { chromium, type BrowserContext, type Page } from 'playwright';
import { chromiumTicks } from './chromium-ticks.ts';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '8' },
    per: { type: 'string', default: '5' },
    'chromium-arg': { type: 'string', multiple: true, default: [] },
    'render-document': { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-source-maps': { type: 'boolean', default: false },
  },
});
// As the renderer host runs (renderer-host.ts): tsx turns source maps on, and Playwright captures a
// stack trace at every call.
if (flags['no-source-maps']) process.setSourceMapsEnabled(false);
const ROUNDS = Number(flags.rounds);
const PER = Number(flags.per);
const html = readFileSync(new URL('../test/fixtures/invoice/invoice.html', import.meta.url), 'utf8');
const { pageRuntimeScript } = await import('../libs/renderer/src/eta-bundle.ts');
const runtime = await pageRuntimeScript();

const browser = await chromium.launch({ executablePath: resolveChromiumPath(), args: [...switches(), ...flags['chromium-arg']] });

/** The service's switches; with --render-document, Chromium's RenderDocument is left on (as before issue 13). */
function switches(): string[] {
  if (!flags['render-document']) return chromiumArgs();
  return chromiumArgs().map((a) =>
    a.startsWith('--disable-features=') ? `--disable-features=${PLAYWRIGHT_DISABLED_FEATURES.join(',')}` : a,
  );
}

/** The pids chromiumTicks counted: how many renderer processes a variant spawned. */
const seen = new Set<number>();

async function guardedContext(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: A4_VIEWPORT, deviceScaleFactor: 1, serviceWorkers: 'block' });
  await context.route('**/*', (route) => route.abort());
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Page.enable');
  await page.emulateMedia({ media: 'print' });
  return { context, page };
}

async function print(page: Page): Promise<void> {
  await page.setContent(html);
  await page.evaluate(async () => {
    await document.fonts.ready;
  });
  await page.pdf({ format: 'A4', printBackground: true });
}

type Variant = { name: string; job: () => Promise<void>; ms: number[]; ticks: number; spawned: number; nodeUs: number };
const only = flags.only?.split(',');
const variants: Variant[] = [];
function variant(name: string, job: () => Promise<void>) {
  if (only && !only.includes(name)) return;
  variants.push({ name, job, ms: [], ticks: 0, spawned: 0, nodeUs: 0 });
}

{
  const { page } = await guardedContext();
  variant('ceiling', () => print(page));
}
{
  const { page } = await guardedContext();
  variant('fresh+runtime', async () => {
    await print(page);
    await page.goto('about:blank');
    await page.evaluate((s) => {
      window.name = '';
      (0, eval)(s);
    }, runtime);
    await page.emulateMedia({ media: 'print' });
  });
}
{
  const { context, page } = await guardedContext();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: documentStartScript(runtime) });
  variant('fresh+init', async () => {
    await print(page);
    await page.goto('about:blank');
    await page.emulateMedia({ media: 'print' });
  });
}
{
  const { page } = await guardedContext();
  variant('fresh', async () => {
    await print(page);
    await page.goto('about:blank');
    await page.evaluate(() => {
      window.name = '';
    });
  });
}
{
  const { page } = await guardedContext();
  variant('fresh (in-page)', async () => {
    await print(page);
    await Promise.all([page.waitForNavigation({ url: 'about:blank' }), page.evaluate(() => location.replace('about:blank'))]);
    await page.evaluate(() => {
      window.name = '';
    });
  });
}
/** The job's HTML as a navigation response: CSP sandbox without allow-same-origin makes its origin opaque. */
async function servedJob(page: Page): Promise<string> {
  const url = 'http://job.pressroom.invalid/document';
  await page.route(url, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      headers: { 'content-security-policy': 'sandbox allow-scripts', 'cache-control': 'no-store' },
      body: html,
    }),
  );
  return url;
}
async function printNavigated(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.emulateMedia({ media: 'print' }); // lost in the navigation, as after a reset
  await page.evaluate(async () => {
    await document.fonts.ready;
  });
  await page.pdf({ format: 'A4', printBackground: true });
}
{
  const { page } = await guardedContext();
  const url = await servedJob(page);
  variant('job navigation', () => printNavigated(page, url));
}
{
  const { context, page } = await guardedContext();
  const cdp = await context.newCDPSession(page);
  const url = await servedJob(page);
  variant('job nav+freeze', async () => {
    await cdp.send('Page.setWebLifecycleState', { state: 'active' });
    await printNavigated(page, url);
    await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
  });
}
{
  const { context } = await guardedContext();
  let page = context.pages()[0]!;
  variant('new page', async () => {
    await print(page);
    const next = await context.newPage();
    const cdp = await context.newCDPSession(next);
    await cdp.send('Page.enable');
    await next.emulateMedia({ media: 'print' });
    await page.close();
    page = next;
  });
}
{
  let current = await guardedContext();
  variant('new context', async () => {
    await print(current.page);
    const next = await guardedContext();
    await current.context.close();
    current = next;
  });
}

for (const v of variants) for (let i = 0; i < 3; i++) await v.job(); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const v of variants) {
    const before = chromiumTicks(seen);
    const known = seen.size;
    const node = process.cpuUsage();
    for (let i = 0; i < PER; i++) {
      const t = performance.now();
      await v.job();
      v.ms.push(performance.now() - t);
    }
    const nodeUsed = process.cpuUsage(node);
    v.nodeUs += nodeUsed.user + nodeUsed.system;
    v.ticks += chromiumTicks(seen) - before;
    v.spawned += seen.size - known;
  }
}
await browser.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const base = variants[0]!;
console.log(`Isolation ideas, ${ROUNDS}×${PER} interleaved jobs each (render + what isolates it from the next), Chromium CPU from /proc:`);
for (const v of variants) {
  const cpu = (v.ticks * 10) / v.ms.length;
  console.log(
    `  ${v.name.padEnd(14)} p50 ${median(v.ms).toFixed(0).padStart(4)} ms   Chromium CPU ${cpu.toFixed(0).padStart(4)} ms/job  (+${(cpu - (base.ticks * 10) / base.ms.length).toFixed(0)} over ceiling), Node CPU ${(v.nodeUs / 1000 / v.ms.length).toFixed(1).padStart(5)} ms/job, ${(v.spawned / v.ms.length).toFixed(2)} new processes/job`,
  );
}
