// What isolating one job from the next costs, per job, three ways, interleaved so that the load of
// a shared machine hits all three alike:
//
//   reset          a fresh about:blank document in the same page (globals, timers, popups gone)
//   reset + clear  the same, then the storage of the assets origin cleared through DevTools and
//                  every cookie of the context (what warm-page.ts does)
//   new context    a new BrowserContext with its network guard, page and document
//
//   npx tsx bench/reset.bench.ts            # 40 rounds
//   npx tsx bench/reset.bench.ts --n 100
import { parseArgs } from 'node:util';
import { chromiumArgs, resolveChromiumPath } from '@pressroom/renderer';
import { chromium, type BrowserContext } from 'playwright';

const { values: flags } = parseArgs({ options: { n: { type: 'string', default: '40' } } });
const N = Number(flags.n);
const ASSET_ORIGIN = 'https://assets.pressroom.invalid';

const browser = await chromium.launch({ executablePath: resolveChromiumPath(), args: chromiumArgs() });

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 794, height: 1123 }, serviceWorkers: 'block' });
  await context.route('**/*', (route) => route.abort());
  const page = await context.newPage();
  await page.emulateMedia({ media: 'print' });
  await page.goto('about:blank');
  await page.evaluate(() => 1);
  return context;
}

const kept = await newContext();
const page = kept.pages()[0]!;
const cdp = await kept.newCDPSession(page);
const times = { reset: [] as number[], 'reset + clear': [] as number[], 'new context': [] as number[] };
let old = await newContext();

for (let i = 0; i < N; i++) {
  let t = performance.now();
  await page.goto('about:blank');
  await page.evaluate(() => 1);
  times.reset.push(performance.now() - t);

  t = performance.now();
  await page.goto('about:blank');
  await page.evaluate(() => 1);
  await Promise.all([cdp.send('Storage.clearDataForOrigin', { origin: ASSET_ORIGIN, storageTypes: 'all' }), kept.clearCookies()]);
  await page.emulateMedia({ media: 'print' });
  times['reset + clear'].push(performance.now() - t);

  t = performance.now();
  const fresh = await newContext();
  await old.close();
  old = fresh;
  times['new context'].push(performance.now() - t);
}
await browser.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const base = median(times.reset);
console.log(`Isolation between two jobs, ${N} interleaved rounds, median ms per job (ratio to reset):`);
for (const [name, xs] of Object.entries(times)) {
  console.log(`  ${name.padEnd(14)} ${median(xs).toFixed(1).padStart(7)} ms  ${(median(xs) / base).toFixed(2)}×`);
}
