// What Chromium's painting for the screen costs a render (issue 13): the bare ceiling and the
// service's per-job steps, each with and without paintNothingOnScreen (warm-page.ts: the page keeps
// its A4 viewport, the visible area Chromium rasterizes is one pixel), interleaved in rounds so
// the load of a shared machine hits all alike. Chromium's CPU is read from /proc.
//
//   ceiling              a bare warm page: setContent + pdf
//   fresh                the service's per-job steps: about:blank, print media, setContent, pdf
//   ... (nothing painted) the same, the screen unpainted
//
//   npx tsx bench/visible-area.bench.ts                  # 6 rounds of 6 jobs per variant
//   npx tsx bench/visible-area.bench.ts --rounds 10 --per 4
//
// The machine is shared: compare rows of one run only.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chromiumArgs, resolveChromiumPath } from '@pressroom/renderer';
import { chromium, type Page } from 'playwright';
import { chromiumTicks } from './chromium-ticks.ts';

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '6' }, per: { type: 'string', default: '6' } },
});
const ROUNDS = Number(flags.rounds);
const PER = Number(flags.per);
const html = readFileSync(new URL('../test/fixtures/invoice/invoice.html', import.meta.url), 'utf8');
const { paintNothingOnScreen, A4_VIEWPORT } = await import('../libs/renderer/src/warm-page.ts');
const { bodyPdfOptions, resolvePageSetup } = await import('../libs/renderer/src/page-setup.ts');
const pdfOptions = bodyPdfOptions(resolvePageSetup(undefined, { header: false, footer: false }));
const browser = await chromium.launch({ executablePath: resolveChromiumPath(), args: chromiumArgs() });

interface Variant {
  name: string;
  page: Page;
  job: (page: Page) => Promise<void>;
}

async function variant(name: string, unpainted: boolean, job: Variant['job']): Promise<Variant> {
  const context = await browser.newContext({ viewport: A4_VIEWPORT });
  const page = await context.newPage();
  if (unpainted) await paintNothingOnScreen(await context.newCDPSession(page), A4_VIEWPORT);
  await page.emulateMedia({ media: 'print' });
  return { name, page, job };
}

const ceiling = async (page: Page): Promise<void> => {
  await page.setContent(html);
  await page.pdf(pdfOptions);
};
const fresh = async (page: Page): Promise<void> => {
  await page.goto('about:blank');
  await page.emulateMedia({ media: 'print' });
  await ceiling(page);
};
const variants = [
  await variant('ceiling', false, ceiling),
  await variant('ceiling (nothing painted)', true, ceiling),
  await variant('fresh', false, fresh),
  await variant('fresh (nothing painted)', true, fresh),
];

const totals = new Map<string, { ticks: number; ms: number; n: number }>();
for (const v of variants) for (let i = 0; i < 3; i++) await v.job(v.page);
for (let round = 0; round < ROUNDS; round++) {
  for (const v of variants) {
    const ticks = chromiumTicks();
    const start = performance.now();
    for (let i = 0; i < PER; i++) await v.job(v.page);
    const t = totals.get(v.name) ?? { ticks: 0, ms: 0, n: 0 };
    t.ticks += chromiumTicks() - ticks;
    t.ms += performance.now() - start;
    t.n += PER;
    totals.set(v.name, t);
  }
}
await browser.close();

const tick = 1000 / 100; // ms per clock tick (USER_HZ 100 on Linux)
console.log(`invoice PDF, ${ROUNDS} rounds of ${PER} jobs per variant, interleaved`);
console.log('| variant | Chromium CPU ms/job | wall ms/job |\n| --- | --- | --- |');
for (const [name, t] of totals) console.log(`| ${name} | ${((t.ticks * tick) / t.n).toFixed(1)} | ${(t.ms / t.n).toFixed(1)} |`);
