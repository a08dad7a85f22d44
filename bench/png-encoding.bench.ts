// What a PNG capture of the invoice costs, by how it is taken and encoded, interleaved (rounds of
// each) so the load of a shared machine hits all alike. Each job: setContent + one capture, on a
// warm page emulating print media (as the service's pages do).
//
//   playwright     page.screenshot({ type: 'png', fullPage: true }): the bench ceiling's capture
//   small          capturePng(…, 'small'): one DevTools call, Chromium's default compression
//   fast           capturePng(…, 'fast'): the same with optimizeForSpeed (the service's default)
//
//   npx tsx bench/png-encoding.bench.ts              # 4 rounds of 10 jobs per variant
//   npx tsx bench/png-encoding.bench.ts --rounds 8 --per 10
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { A4_VIEWPORT, capturePng, chromiumArgs, resolveChromiumPath, type PngEncoding } from '@pressroom/renderer';
import { chromium } from 'playwright';
import { chromiumTicks } from './chromium-ticks.ts';
import { positiveInt } from './positive-int.ts';

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '4' }, per: { type: 'string', default: '10' } },
});
const ROUNDS = positiveInt(flags.rounds, '--rounds');
const PER = positiveInt(flags.per, '--per');
const html = readFileSync(new URL('../test/fixtures/invoice/invoice.html', import.meta.url), 'utf8');

const browser = await chromium.launch({ executablePath: resolveChromiumPath(), args: chromiumArgs() });
const context = await browser.newContext({ viewport: A4_VIEWPORT, deviceScaleFactor: 1 });
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await page.emulateMedia({ media: 'print' });

async function ours(encoding: PngEncoding): Promise<Buffer> {
  const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
  return capturePng(cdp, cssContentSize, A4_VIEWPORT, encoding);
}

const variants = [
  { name: 'playwright', capture: () => page.screenshot({ type: 'png', fullPage: true }) },
  { name: 'small', capture: () => ours('small') },
  { name: 'fast', capture: () => ours('fast') },
].map((v) => ({ ...v, ticks: 0, wallMs: 0, jobs: 0, bytes: 0 }));

// Round 0 warms every variant up and is not counted.
for (let round = 0; round <= ROUNDS; round++) {
  for (const v of variants) {
    const ticks = chromiumTicks();
    const start = performance.now();
    let bytes = 0;
    for (let i = 0; i < PER; i++) {
      await page.setContent(html);
      bytes = (await v.capture()).byteLength;
    }
    if (round === 0) continue;
    v.wallMs += performance.now() - start;
    v.ticks += chromiumTicks() - ticks;
    v.jobs += PER;
    v.bytes = bytes;
  }
}
await browser.close();

const hz = 100; // USER_HZ: /proc counts CPU in 1/100 s
console.log(`PNG capture of the invoice, ${ROUNDS}×${PER} interleaved jobs per variant (setContent + capture), Chromium CPU from /proc:`);
console.log('variant     | Chromium CPU ms/job | wall ms/job | bytes');
for (const v of variants) {
  const cpu = ((v.ticks * 1000) / hz / v.jobs).toFixed(0);
  console.log(`${v.name.padEnd(11)} | ${cpu.padStart(19)} | ${(v.wallMs / v.jobs).toFixed(0).padStart(11)} | ${v.bytes}`);
}
