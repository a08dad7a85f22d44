// The service against Chromium's own limit, side by side in one run (issue 13).
//
//   ceiling     a bare warm Playwright page per concurrent caller (its own context, A4 viewport,
//               print media), `setContent` + `page.pdf` / `page.screenshot({fullPage})`, on a
//               browser launched from the binary and switches the service uses (infra/chromium)
//   embedded    `npm start`'s embedded profile as its own process (default settings), called over
//               HTTP: `POST /v1/html-to-pdf/sync` then a GET of the `signedUrl` (what a caller does)
//
// For each output (PDF, PNG) and concurrency it prints and writes renders/s, p50/p95/p99 latency,
// CPU ms per render (the whole machine, from /proc/stat: the machine is shared, so compare rows of
// the same run only), peak RSS of the service's Node process(es) and of Chromium (sum over its
// processes, sampled from /proc every 100 ms), bytes per output and the ratio to the ceiling row.
//
//   npm run bench                                   # 40 renders per row, PDF and PNG, concurrency 1,2,4
//   npm run bench -- --n 100 --concurrency 1,2      # more samples, chosen concurrencies
//   npm run bench -- --outputs pdf                  # PDF only
//   npm run bench -- --env PRESSROOM_RENDER_PAGES=4 # a setting of the service under test (repeatable)
//   npm run bench -- --cpu-prof /tmp/prof           # the service writes a V8 CPU profile there on exit
//   npm run bench -- --label "after X"              # names the results file
//   npm run bench:renderer                          # the renderer alone against bare Playwright
//
// Results: bench/results/<timestamp>.md and .json, and bench/results/latest.md (shown in the README).
import { mkdirSync, readFileSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import { chromiumArgs, resolveChromiumPath, A4_VIEWPORT } from '@pressroom/renderer';
import { chromium, type Page } from 'playwright';
import { startEmbedded } from '../test/support/embedded-service.ts';

const { values: flags } = parseArgs({
  options: {
    n: { type: 'string', default: '40' },
    warmup: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '1,2,4' },
    outputs: { type: 'string', default: 'pdf,png' },
    env: { type: 'string', multiple: true, default: [] },
    'cpu-prof': { type: 'string' },
    label: { type: 'string', default: '' },
    'no-write': { type: 'boolean', default: false },
  },
});

const N = positiveInt(flags.n, '--n');
const WARMUP = Number(flags.warmup);
const CONCURRENCY = flags.concurrency.split(',').map((c) => positiveInt(c, '--concurrency'));
const OUTPUTS = flags.outputs.split(',').map((o) => {
  if (o !== 'pdf' && o !== 'png') throw new Error(`--outputs: pdf and/or png, got ${o}`);
  return o;
});
const serviceEnv = Object.fromEntries(
  flags.env.map((kv) => {
    const at = kv.indexOf('=');
    if (at < 1) throw new Error(`--env NAME=value, got ${kv}`);
    return [kv.slice(0, at), kv.slice(at + 1)];
  }),
);

// The shared fixture (/work/shared/fixtures/invoice) is copied into the repository so the bench runs anywhere.
const fixtures = new URL('../test/fixtures/invoice/', import.meta.url);
const invoiceHtml = readFileSync(new URL('invoice.html', fixtures), 'utf8');

type Output = 'pdf' | 'png';
type Path = 'ceiling' | 'embedded sync';

interface Row {
  path: Path;
  output: Output;
  concurrency: number;
  renders: number;
  failed: number;
  rendersPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  /** Whole machine, per render. */
  cpuMsPerRender: number;
  /** The service's own Node processes (app, renderer host), per render. */
  serviceCpuMs: number | null;
  /** Chromium's processes (of the ceiling's browser, or the service's), per render. */
  chromiumCpuMs: number;
  serviceRssMb: number | null;
  chromiumRssMb: number;
  bytes: number;
  ratio: number | null;
}

// ---- /proc ---------------------------------------------------------------------------------

const CLK_TCK = 100; // USER_HZ on Linux

/** Busy jiffies of the whole machine (every core): user+nice+system+irq+softirq+steal. */
function machineBusyJiffies(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return user + nice + system + irq + softirq + steal;
}

interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  rssKb: number;
}

function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const field = (key: string) => /^(.*)$/m.exec(status.split('\n').find((l) => l.startsWith(key + ':'))?.slice(key.length + 1).trim() ?? '')?.[1] ?? '';
      out.push({ pid: Number(name), ppid: Number(field('PPid')), comm: field('Name'), rssKb: parseInt(field('VmRSS'), 10) || 0 });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** RSS (kB) of the descendants of `root` (and root itself), split into Chromium and the rest. */
function treeRss(root: number): { chromiumKb: number; otherKb: number } {
  const all = processes();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const self = all.find((p) => p.pid === root);
  const queue = self ? [self] : [];
  let chromiumKb = 0;
  let otherKb = 0;
  while (queue.length) {
    const p = queue.pop()!;
    if (/chrom|headless/i.test(p.comm)) chromiumKb += p.rssKb;
    else otherKb += p.rssKb;
    queue.push(...(children.get(p.pid) ?? []));
  }
  return { chromiumKb, otherKb };
}

/** CPU ticks (user + system) of each process in the tree of `root`, by pid, and whether it is Chromium. */
function treeCpu(root: number): Map<number, { ticks: number; chromium: boolean }> {
  const all = processes();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out = new Map<number, { ticks: number; chromium: boolean }>();
  const queue = all.filter((p) => p.pid === root);
  while (queue.length) {
    const p = queue.pop()!;
    try {
      // comm may hold spaces and parentheses: the fields start after the last ')'.
      const stat = readFileSync(`/proc/${p.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(p.pid, { ticks: Number(fields[11]) + Number(fields[12]), chromium: /chrom|headless/i.test(p.comm) });
    } catch {
      /* gone */
    }
    queue.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** CPU ms the tree's processes used between two treeCpu snapshots, split into Chromium and the rest. */
function cpuBetween(before: ReturnType<typeof treeCpu>, after: ReturnType<typeof treeCpu>, includeRoot: boolean, root: number) {
  let chromium = 0;
  let other = 0;
  for (const [pid, a] of after) {
    const d = a.ticks - (before.get(pid)?.ticks ?? 0);
    if (process.env.BENCH_CPU_DETAIL && d > 0) console.log(`    pid ${pid} ${a.chromium ? 'chromium' : readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 90)}: ${d * 10} ms`);
    if (!includeRoot && pid === root) continue;
    if (a.chromium) chromium += d;
    else other += d;
  }
  return { chromiumMs: (chromium * 1000) / CLK_TCK, otherMs: (other * 1000) / CLK_TCK };
}

/** Samples the tree's RSS every 100 ms until stopped; answers the peaks. */
function rssSampler(root: number, countSelf: boolean) {
  let chromium = 0;
  let other = 0;
  const sample = () => {
    const t = treeRss(root);
    chromium = Math.max(chromium, t.chromiumKb);
    other = Math.max(other, countSelf ? t.otherKb : 0);
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { chromiumMb: chromium / 1024, otherMb: other / 1024 };
    },
  };
}

// ---- measuring -----------------------------------------------------------------------------

type RenderOnce = (worker: number) => Promise<number>;

async function measure(concurrency: number, renderOnce: RenderOnce, root: number, includeRoot: boolean) {
  for (let i = 0; i < WARMUP; i++) await renderOnce(i % concurrency);
  const latencies: number[] = [];
  let bytes = 0;
  let next = 0;
  let failed = 0;
  const cpuBefore = machineBusyJiffies();
  const treeBefore = treeCpu(root);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < N) {
        next++;
        const t = performance.now();
        try {
          const size = await renderOnce(worker); // not `bytes += await …`: that reads bytes before the wait
          bytes += size;
          latencies.push(performance.now() - t);
        } catch (err) {
          failed++;
          if (failed <= 3) console.warn(`  a render failed: ${(err as Error).message}`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = ((machineBusyJiffies() - cpuBefore) * 1000) / CLK_TCK;
  const tree = cpuBetween(treeBefore, treeCpu(root), includeRoot, root);
  latencies.sort((a, b) => a - b);
  const ok = latencies.length;
  return {
    renders: ok,
    failed,
    rendersPerSecond: ok / seconds,
    p50: quantile(latencies, 0.5),
    p95: quantile(latencies, 0.95),
    p99: quantile(latencies, 0.99),
    cpuMsPerRender: cpuMs / Math.max(1, ok),
    serviceCpuMs: includeRoot ? tree.otherMs / Math.max(1, ok) : null,
    chromiumCpuMs: tree.chromiumMs / Math.max(1, ok),
    bytes: Math.round(bytes / Math.max(1, ok)),
  };
}

async function ceiling(executablePath: string, output: Output, concurrency: number): Promise<Row> {
  const browser = await chromium.launch({ executablePath, args: chromiumArgs() });
  try {
    const pages: Page[] = [];
    for (let i = 0; i < concurrency; i++) {
      const page = await (await browser.newContext({ viewport: A4_VIEWPORT, deviceScaleFactor: 1 })).newPage();
      await page.emulateMedia({ media: 'print' });
      pages.push(page);
    }
    const sampler = rssSampler(process.pid, false);
    const m = await measure(concurrency, async (worker) => {
      const page = pages[worker]!;
      await page.setContent(invoiceHtml);
      const bytes =
        output === 'pdf' ? await page.pdf({ format: 'A4', printBackground: true }) : await page.screenshot({ type: 'png', fullPage: true });
      return bytes.byteLength;
    }, process.pid, false);
    const rss = sampler.stop();
    return { path: 'ceiling', output, concurrency, ...m, serviceRssMb: null, chromiumRssMb: rss.chromiumMb, ratio: null };
  } finally {
    await browser.close();
  }
}

async function embedded(output: Output, concurrencies: number[], ceilings: Row[]): Promise<Row[]> {
  const nodeArgs = flags['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${flags['cpu-prof']}`] : [];
  const svc = await startEmbedded({ PRESSROOM_LOG_LEVEL: 'warn', ...serviceEnv }, { nodeArgs });
  const pid = svc.app.pid;
  const rows: Row[] = [];
  try {
    const body = JSON.stringify({ html: invoiceHtml, ...(output === 'png' ? { convertToImage: true } : {}) });
    const renderOnce = async () => {
      const res = await fetch(`${svc.baseUrl}/v1/html-to-pdf/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
        body,
      });
      const json = (await res.json()) as { signedUrl?: string };
      if (res.status !== 200 || !json.signedUrl) throw new Error(`sync answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
      const file = await fetch(json.signedUrl);
      if (file.status !== 200) throw new Error(`the signed URL answered ${file.status}`);
      return (await file.arrayBuffer()).byteLength;
    };
    for (const concurrency of concurrencies) {
      const sampler = rssSampler(pid, true);
      const m = await measure(concurrency, renderOnce, pid, true);
      const rss = sampler.stop();
      const base = ceilings.find((c) => c.output === output && c.concurrency === concurrency);
      const row: Row = {
        path: 'embedded sync',
        output,
        concurrency,
        ...m,
        serviceRssMb: rss.otherMb,
        chromiumRssMb: rss.chromiumMb,
        ratio: base ? m.rendersPerSecond / base.rendersPerSecond : null,
      };
      rows.push(row);
      printRow(row);
    }
  } finally {
    await svc.app.stop();
  }
  return rows;
}

// ---- output --------------------------------------------------------------------------------

const HEADER = ['path', 'output', 'conc', 'renders/s', 'p50 ms', 'p95 ms', 'p99 ms', 'CPU ms/render', 'service CPU ms', 'Chromium CPU ms', 'service RSS MB', 'Chromium RSS MB', 'bytes', 'ratio'];

function cells(r: Row): string[] {
  return [
    r.path,
    r.output.toUpperCase(),
    String(r.concurrency),
    r.rendersPerSecond.toFixed(1),
    r.p50.toFixed(0),
    r.p95.toFixed(0),
    r.p99.toFixed(0),
    r.cpuMsPerRender.toFixed(0),
    r.serviceCpuMs === null ? '—' : r.serviceCpuMs.toFixed(0),
    r.chromiumCpuMs.toFixed(0),
    r.serviceRssMb === null ? '—' : r.serviceRssMb.toFixed(0),
    r.chromiumRssMb.toFixed(0),
    String(r.bytes),
    (r.ratio === null ? '' : `${r.ratio.toFixed(2)}×`) + (r.failed ? ` (${r.failed} failed)` : ''),
  ];
}

function printRow(r: Row): void {
  const widths = [13, 6, 4, 9, 7, 7, 7, 13, 14, 15, 14, 15, 8, 12];
  console.log(cells(r).map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' '));
}

function markdown(rows: Row[], meta: string): string {
  const line = (c: string[]) => `| ${c.join(' | ')} |`;
  return [meta, '', line(HEADER), line(HEADER.map(() => '---')), ...rows.map((r) => line(cells(r))), ''].join('\n');
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return n;
}

// ---- the run -------------------------------------------------------------------------------

const executablePath = resolveChromiumPath();
const probe = await chromium.launch({ executablePath, args: chromiumArgs() });
const version = probe.version();
await probe.close();
const started = new Date();
const meta =
  `Invoice fixture (2-page A4), ${N} renders per row after ${WARMUP} warm-up, ${executablePath.split('/').pop()} ${version}, ` +
  `${cpus().length} cores, ${started.toISOString()}` +
  (flags.label ? `, ${flags.label}` : '') +
  (Object.keys(serviceEnv).length ? `, service env ${flags.env.join(' ')}` : '') +
  '. Ceiling = bare warm Playwright page (setContent + pdf/screenshot); ratio = renders/s against the ceiling row of the same output and concurrency. ' +
  'CPU ms/render counts the whole machine (shared: other work shows up here too); service CPU (its Node processes) and Chromium CPU (its processes) are per render, from /proc/<pid>/stat.';
console.log(meta);
console.log(HEADER.join(' | '));

const rows: Row[] = [];
for (const output of OUTPUTS) {
  const ceilings: Row[] = [];
  for (const concurrency of CONCURRENCY) {
    const row = await ceiling(executablePath, output, concurrency);
    ceilings.push(row);
    printRow(row);
  }
  rows.push(...ceilings, ...(await embedded(output, CONCURRENCY, ceilings)));
}

if (!flags['no-write']) {
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const md = markdown(rows, meta);
  writeFileSync(new URL(`${stamp}.md`, dir), md);
  writeFileSync(new URL(`${stamp}.json`, dir), JSON.stringify({ meta, executablePath, version, env: serviceEnv, rows }, null, 2) + '\n');
  copyFileSync(new URL(`${stamp}.md`, dir), new URL('latest.md', dir));
  console.log(`\nwritten: bench/results/${stamp}.md (.json), bench/results/latest.md`);
}
