// Renders the shared invoice through Pressroom's Renderer (template path and HTML path) and, as
// the baseline in the same run, through bare Playwright (setContent + page.pdf on warm pages of a
// browser launched from the same binary with the same switches). Prints renders/s, p50/p95
// latency, bytes per PDF, and ours/baseline.
//
//   npm run bench                                  # N=60 per row, concurrency 1,2,4
//   npm run bench -- --n 200 --concurrency 1,2     # more samples, chosen concurrencies
//   npm run bench -- --compare-browsers            # chromium-headless-shell and chromium, both
//   npm run bench -- --executable /usr/lib/chromium/chromium
//   npm run bench -- --spare-pages 1                # our pool gets concurrency + 1 pages
//   npm run bench -- --supervised                   # also the renderer as the apps run it: in a
//                                                   # supervised child process (the IPC hop's cost)
//
// Each job of ours starts in a fresh document (tenant isolation, see libs/renderer/src/warm-page.ts);
// the page is reset after the job's result is returned, so with spare pages the reset overlaps
// the next job instead of delaying it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { quantile } from './quantile.ts';
import { positiveInt } from './positive-int.ts';
import { chromiumArgs, createPlaywrightRenderer, createSupervisedRenderer, resolveChromiumPath } from '@pressroom/renderer';
import type { Renderer, RenderJob } from '@pressroom/core';
import { chromium, type Page } from 'playwright';

const { values: flags } = parseArgs({
  options: {
    n: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '1,2,4' },
    warmup: { type: 'string', default: '5' },
    'spare-pages': { type: 'string', default: '0' },
    executable: { type: 'string' },
    'compare-browsers': { type: 'boolean', default: false },
    supervised: { type: 'boolean', default: false },
  },
});

const N = positiveInt(flags.n, '--n');
const WARMUP = Number(flags.warmup);
const SPARE_PAGES = Number(flags['spare-pages']);
const CONCURRENCY = flags.concurrency.split(',').map((c) => positiveInt(c, '--concurrency'));

const fixtures = new URL('../test/fixtures/invoice/', import.meta.url);
const invoice = {
  html: readFileSync(new URL('invoice.html', fixtures), 'utf8'),
  template: readFileSync(new URL('invoice.eta', fixtures), 'utf8'),
  data: JSON.parse(readFileSync(new URL('invoice.json', fixtures), 'utf8')) as Record<string, unknown>,
};

interface Row {
  binary: string;
  concurrency: number;
  path: 'baseline' | 'ours: html' | 'ours: template' | 'child: html' | 'child: template';
  rendersPerSecond: number;
  p50: number;
  p95: number;
  bytes: number;
}

type RenderOnce = (worker: number) => Promise<number>;

/** Runs WARMUP then N renders spread over `concurrency` workers; returns throughput and latencies. */
async function measure(concurrency: number, renderOnce: RenderOnce) {
  for (let i = 0; i < WARMUP; i++) await renderOnce(i % concurrency);
  const latencies: number[] = [];
  let bytes = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < N) {
        next++;
        const t = performance.now();
        const size = await renderOnce(worker);
        latencies.push(performance.now() - t);
        bytes += size;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rendersPerSecond: N / seconds,
    p50: quantile(latencies, 0.5),
    p95: quantile(latencies, 0.95),
    bytes: Math.round(bytes / N),
  };
}

async function baseline(executablePath: string, concurrency: number) {
  const browser = await chromium.launch({ executablePath, args: chromiumArgs() });
  try {
    const pages: Page[] = [];
    for (let i = 0; i < concurrency; i++) pages.push(await (await browser.newContext()).newPage());
    return await measure(concurrency, async (worker) => {
      const page = pages[worker]!;
      await page.setContent(invoice.html);
      return (await page.pdf({ format: 'A4', printBackground: true })).byteLength;
    });
  } finally {
    await browser.close();
  }
}

async function ours(executablePath: string, concurrency: number, source: RenderJob['source'], inChild = false) {
  const options = { executablePath, pages: concurrency + SPARE_PAGES, recycleAfter: 200, maxOutputBytes: 50_000_000 };
  const renderer: Renderer = inChild ? await createSupervisedRenderer(options) : await createPlaywrightRenderer(options);
  try {
    return await measure(concurrency, async () => {
      const out = await renderer.render({ source, output: 'pdf', timeoutMs: 30_000 });
      return out.bytes.byteLength;
    });
  } finally {
    await renderer.close();
  }
}

async function benchBinary(executablePath: string): Promise<Row[]> {
  const binary = executablePath.split('/').pop() ?? executablePath;
  const rows: Row[] = [];
  const html = { kind: 'html', html: invoice.html } as const;
  const template = { kind: 'template', templateId: 'invoice', templateVersion: 1, content: invoice.template, data: invoice.data } as const;
  for (const concurrency of CONCURRENCY) {
    rows.push({ binary, concurrency, path: 'baseline', ...(await baseline(executablePath, concurrency)) });
    rows.push({ binary, concurrency, path: 'ours: html', ...(await ours(executablePath, concurrency, html)) });
    rows.push({ binary, concurrency, path: 'ours: template', ...(await ours(executablePath, concurrency, template)) });
    if (flags.supervised) {
      rows.push({ binary, concurrency, path: 'child: html', ...(await ours(executablePath, concurrency, html, true)) });
      rows.push({ binary, concurrency, path: 'child: template', ...(await ours(executablePath, concurrency, template, true)) });
    }
    printRows(rows.slice(flags.supervised ? -5 : -3), rows);
  }
  return rows;
}

function printRows(rows: Row[], all: Row[]): void {
  for (const r of rows) {
    const base = all.find((b) => b.binary === r.binary && b.concurrency === r.concurrency && b.path === 'baseline');
    const ratio =
      base && r.path !== 'baseline'
        ? `${(r.rendersPerSecond / base.rendersPerSecond).toFixed(2)}× r/s, ${(r.p50 / base.p50).toFixed(2)}× p50`
        : '';
    console.log(
      [
        r.binary.padEnd(26),
        String(r.concurrency).padStart(4),
        r.path.padEnd(15),
        r.rendersPerSecond.toFixed(1).padStart(9),
        r.p50.toFixed(0).padStart(7),
        r.p95.toFixed(0).padStart(7),
        String(r.bytes).padStart(9),
        '  ' + ratio + inProcessRatio(r, all),
      ].join(' '),
    );
  }
}

/** For a row of the renderer in a child process: its cost against the same path in process. */
function inProcessRatio(r: Row, all: Row[]): string {
  if (!r.path.startsWith('child: ')) return '';
  const same = all.find((b) => b.binary === r.binary && b.concurrency === r.concurrency && b.path === r.path.replace('child: ', 'ours: '));
  return same
    ? `; vs in-process ${(r.rendersPerSecond / same.rendersPerSecond).toFixed(2)}× r/s, ${(r.p50 / same.p50).toFixed(2)}× p50`
    : '';
}

function binariesToRun(): string[] {
  if (!flags['compare-browsers']) return [resolveChromiumPath(flags.executable)];
  const both = ['/usr/lib/chromium/chromium-headless-shell', '/usr/lib/chromium/chromium'].filter((p) => {
    try {
      return resolveChromiumPath(p) === p;
    } catch {
      return false;
    }
  });
  if (both.length < 2) console.warn(`--compare-browsers: only ${both.join(', ') || 'no binary'} is installed`);
  return both;
}

const binaries = binariesToRun();
const probe = await chromium.launch({ executablePath: binaries[0]!, args: chromiumArgs() });
console.log(
  `Invoice benchmark (2-page A4 PDF): ${N} renders per row after ${WARMUP} warm-up, Chromium ${probe.version()}, ` +
    `baseline = bare Playwright setContent + page.pdf on warm pages of the same binary` +
    (SPARE_PAGES ? `, our pool = concurrency + ${SPARE_PAGES} pages` : ''),
);
await probe.close();
console.log(
  [
    'binary'.padEnd(26),
    'conc'.padStart(4),
    'path'.padEnd(15),
    'renders/s'.padStart(9),
    'p50 ms'.padStart(7),
    'p95 ms'.padStart(7),
    'bytes'.padStart(9),
    '  ours/baseline',
  ].join(' '),
);
const results: Row[] = [];
for (const binary of binaries) results.push(...(await benchBinary(binary)));

if (binaries.length === 2) {
  const [shell, full] = binaries.map((b) => b.split('/').pop());
  console.log(`\n${shell} vs ${full} (same path and concurrency; > 1 means the headless shell is faster):`);
  for (const r of results.filter((x) => x.binary === shell)) {
    const other = results.find((x) => x.binary === full && x.concurrency === r.concurrency && x.path === r.path);
    if (other) {
      console.log(
        `  c=${r.concurrency} ${r.path.padEnd(15)} ${(r.rendersPerSecond / other.rendersPerSecond).toFixed(2)}× renders/s, p50 ${r.p50.toFixed(0)} vs ${other.p50.toFixed(0)} ms, ${r.bytes} vs ${other.bytes} bytes`,
      );
    }
  }
}
