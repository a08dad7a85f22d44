// What a job's screen painting and its fresh window cost Chromium (issue 13): the bare ceiling and
// the service's per-job steps, with and without each, interleaved in rounds so the load of a
// shared machine hits all alike. Chromium's CPU is read from /proc, the bench's own Node CPU from
// process.cpuUsage (Playwright's client and server run here).
//
//   ceiling                   a bare warm page: setContent + pdf
//   ceiling (nothing painted) the same with paintNothingOnScreen (warm-page.ts: the visible area
//                             Chromium rasterizes is one pixel, the page's viewport stays A4)
//   fresh                     the per-job steps of a job that may run script: about:blank, print
//                             media, setContent, the readiness wait, pdf
//   fresh (nothing painted)   the same, nothing painted (the service's scripted path)
//   held window, script off   a script-free job (script-free.ts): script off, no navigation,
//                             the document emptied after the job (the service's script-free path)
//   job navigation            script off, each job's own document navigated to as a data: URL
//                             (a fresh window per job without the about:blank step; not used)
//
//   npx tsx bench/screen-and-window.bench.ts                  # 6 rounds of 6 jobs per variant
//   npx tsx bench/screen-and-window.bench.ts --rounds 15 --per 6
//
// The machine is shared: compare rows of one run only.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chromiumArgs, resolveChromiumPath } from '@pressroom/renderer';
import { chromium, type CDPSession, type Page } from 'playwright';
import { chromiumTicks } from './chromium-ticks.ts';

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '6' }, per: { type: 'string', default: '6' } },
});
const ROUNDS = Number(flags.rounds);
const PER = Number(flags.per);
const html = readFileSync(new URL('../test/fixtures/invoice/invoice.html', import.meta.url), 'utf8');
const { paintNothingOnScreen, A4_VIEWPORT } = await import('../libs/renderer/src/warm-page.ts');
const { settleFontsAndImages } = await import('../libs/renderer/src/readiness.ts');
// The default page setup as Playwright options (every variant prints alike; what differs is the screen).
const pdfOptions = { format: 'A4', printBackground: true, preferCSSPageSize: true };
const browser = await chromium.launch({ executablePath: resolveChromiumPath(), args: chromiumArgs() });

interface Variant {
  name: string;
  page: Page;
  cdp: CDPSession;
  job: (page: Page, cdp: CDPSession) => Promise<void>;
}

async function variant(name: string, opts: { unpainted: boolean; scriptOff?: boolean }, job: Variant['job']): Promise<Variant> {
  const context = await browser.newContext({ viewport: A4_VIEWPORT });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  if (opts.unpainted) await paintNothingOnScreen(cdp, A4_VIEWPORT);
  if (opts.scriptOff) await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
  await page.emulateMedia({ media: 'print' });
  return { name, page, cdp, job };
}

const ceiling = async (page: Page): Promise<void> => {
  await page.setContent(html);
  await page.pdf(pdfOptions);
};
const fresh = async (page: Page): Promise<void> => {
  await page.goto('about:blank');
  await page.emulateMedia({ media: 'print' });
  await page.setContent(html);
  await settleFontsAndImages(page);
  await page.pdf(pdfOptions);
};
const held = async (page: Page, cdp: CDPSession): Promise<void> => {
  await page.setContent(html);
  await settleFontsAndImages(page);
  await page.pdf(pdfOptions);
  await cdp.send('Runtime.evaluate', { expression: 'document.open(); document.close();' });
};
const dataUrl = `data:text/html;charset=utf-8;base64,${Buffer.from(html).toString('base64')}`;
const navigated = async (page: Page): Promise<void> => {
  await page.goto(dataUrl);
  await settleFontsAndImages(page);
  await page.pdf(pdfOptions);
};
const variants = [
  await variant('ceiling', { unpainted: false }, ceiling),
  await variant('ceiling (nothing painted)', { unpainted: true }, ceiling),
  await variant('fresh', { unpainted: false }, fresh),
  await variant('fresh (nothing painted)', { unpainted: true }, fresh),
  await variant('held window, script off (nothing painted)', { unpainted: true, scriptOff: true }, held),
  await variant('job navigation, script off (nothing painted)', { unpainted: true, scriptOff: true }, navigated),
];

const totals = new Map<string, { ticks: number; node: number; ms: number; n: number }>();
for (const v of variants) for (let i = 0; i < 3; i++) await v.job(v.page, v.cdp);
for (let round = 0; round < ROUNDS; round++) {
  for (const v of variants) {
    const ticks = chromiumTicks();
    const node = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < PER; i++) await v.job(v.page, v.cdp);
    const used = process.cpuUsage(node);
    const t = totals.get(v.name) ?? { ticks: 0, node: 0, ms: 0, n: 0 };
    t.ticks += chromiumTicks() - ticks;
    t.node += (used.user + used.system) / 1000;
    t.ms += performance.now() - start;
    t.n += PER;
    totals.set(v.name, t);
  }
}
await browser.close();

const tick = 1000 / 100; // ms per clock tick (USER_HZ 100 on Linux)
console.log(`invoice PDF, ${ROUNDS} rounds of ${PER} jobs per variant, interleaved`);
console.log('| variant | Chromium CPU ms/job | Node CPU ms/job | wall ms/job |\n| --- | --- | --- | --- |');
for (const [name, t] of totals) {
  console.log(`| ${name} | ${((t.ticks * tick) / t.n).toFixed(1)} | ${(t.node / t.n).toFixed(1)} | ${(t.ms / t.n).toFixed(1)} |`);
}
