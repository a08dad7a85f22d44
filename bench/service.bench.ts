// The service against Chromium's own limit, side by side in one run (issue 13).
//
//   ceiling     a bare warm Playwright page per concurrent caller (its own context, A4 viewport,
//               print media), `setContent` + `page.pdf` / `page.screenshot({fullPage})`, on a
//               browser launched from the binary and switches the service uses (infra/chromium)
//   embedded    `npm start`'s embedded profile as its own process (default settings), called over
//               HTTP: `POST /v1/html-to-pdf/sync` then a GET of the `signedUrl` (what a caller does)
//
// The two take turns (--rounds chunks each per row), so that the load of a shared machine falls
// on both alike. For each output (PDF, PNG) and concurrency it prints and writes renders/s, p50/p95/p99 latency,
// CPU ms per render (the whole machine, from /proc/stat: the machine is shared, so compare rows of
// the same run only), peak RSS of the service's Node process(es) and of Chromium (sum over its
// processes, sampled from /proc every 100 ms), bytes per output and the ratio to the ceiling row.
//
//   npm run bench                                   # 40 renders per row, PDF and PNG, concurrency 1,2,4
//   npm run bench -- --n 100 --concurrency 1,2      # more samples, chosen concurrencies
//   npm run bench -- --outputs pdf                  # PDF only
//   npm run bench -- --rounds 8                     # turns of ceiling and service per row
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
    rounds: { type: 'string', default: '4' },
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
const ROUNDS = positiveInt(flags.rounds, '--rounds');
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
      const field = (key: string) =>
        /^(.*)$/m.exec(
          status
            .split('\n')
            .find((l) => l.startsWith(key + ':'))
            ?.slice(key.length + 1)
            .trim() ?? '',
        )?.[1] ?? '';
      out.push({ pid: Number(name), ppid: Number(field('PPid')), comm: field('Name'), rssKb: parseInt(field('VmRSS'), 10) || 0 });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** A process tree: `root` and its descendants, without the subtree of `skip`, and without root unless `countRoot`. */
interface TreeSpec {
  root: number;
  skip?: number;
  countRoot: boolean;
}

function treeMembers(spec: TreeSpec): ProcInfo[] {
  const all = processes();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: ProcInfo[] = [];
  const queue = all.filter((p) => p.pid === spec.root);
  while (queue.length) {
    const p = queue.pop()!;
    if (p.pid === spec.skip) continue;
    if (p.pid !== spec.root || spec.countRoot) out.push(p);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

const isChromium = (p: ProcInfo) => /chrom|headless/i.test(p.comm);

/** CPU ticks (user + system) of each process of the tree, by pid, and whether it is Chromium. */
function treeCpu(spec: TreeSpec): Map<number, { ticks: number; chromium: boolean }> {
  const out = new Map<number, { ticks: number; chromium: boolean }>();
  for (const p of treeMembers(spec)) {
    try {
      // comm may hold spaces and parentheses: the fields start after the last ')'.
      const stat = readFileSync(`/proc/${p.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(p.pid, { ticks: Number(fields[11]) + Number(fields[12]), chromium: isChromium(p) });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** CPU ms the tree's processes used between two snapshots, split into Chromium and the rest. */
function cpuBetween(before: ReturnType<typeof treeCpu>, after: ReturnType<typeof treeCpu>) {
  let chromium = 0;
  let other = 0;
  for (const [pid, a] of after) {
    const d = a.ticks - (before.get(pid)?.ticks ?? 0);
    if (a.chromium) chromium += d;
    else other += d;
  }
  return { chromiumMs: (chromium * 1000) / CLK_TCK, otherMs: (other * 1000) / CLK_TCK };
}

/** Samples the tree's RSS every 100 ms until stopped; answers the peaks of the sums. */
function rssSampler(spec: TreeSpec) {
  let chromium = 0;
  let other = 0;
  const sample = () => {
    let c = 0;
    let o = 0;
    for (const p of treeMembers(spec)) {
      if (isChromium(p)) c += p.rssKb;
      else o += p.rssKb;
    }
    chromium = Math.max(chromium, c);
    other = Math.max(other, o);
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

/** What the chunks of one row add up to. */
class Tally {
  latencies: number[] = [];
  bytes = 0;
  failed = 0;
  seconds = 0;
  machineCpuMs = 0;
  nodeCpuMs = 0;
  chromiumCpuMs = 0;
  peakChromiumMb = 0;
  peakNodeMb = 0;

  result() {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const ok = Math.max(1, sorted.length);
    return {
      renders: sorted.length,
      failed: this.failed,
      rendersPerSecond: sorted.length / this.seconds,
      p50: quantile(sorted, 0.5),
      p95: quantile(sorted, 0.95),
      p99: quantile(sorted, 0.99),
      cpuMsPerRender: this.machineCpuMs / ok,
      chromiumCpuMs: this.chromiumCpuMs / ok,
      bytes: Math.round(this.bytes / ok),
    };
  }
}

/**
 * Runs `n` renders over `concurrency` callers and adds them to the tally. CPU and RSS are of the
 * process tree under `root`, without the subtree of `skip` (the ceiling runs in the bench's own
 * process, whose children include the service) and, unless `countRoot`, without root itself.
 */
async function chunk(tally: Tally, n: number, concurrency: number, renderOnce: RenderOnce, tree: TreeSpec): Promise<void> {
  let next = 0;
  const cpuBefore = machineBusyJiffies();
  const treeBefore = treeCpu(tree);
  const sampler = rssSampler(tree);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < n) {
        next++;
        const t = performance.now();
        try {
          const size = await renderOnce(worker); // not `bytes += await …`: that reads bytes before the wait
          tally.bytes += size;
          tally.latencies.push(performance.now() - t);
        } catch (err) {
          tally.failed++;
          if (tally.failed <= 3) console.warn(`  a render failed: ${(err as Error).message}`);
        }
      }
    }),
  );
  tally.seconds += (performance.now() - started) / 1000;
  tally.machineCpuMs += ((machineBusyJiffies() - cpuBefore) * 1000) / CLK_TCK;
  const cpu = cpuBetween(treeBefore, treeCpu(tree));
  tally.nodeCpuMs += cpu.otherMs;
  tally.chromiumCpuMs += cpu.chromiumMs;
  const rss = sampler.stop();
  tally.peakChromiumMb = Math.max(tally.peakChromiumMb, rss.chromiumMb);
  tally.peakNodeMb = Math.max(tally.peakNodeMb, rss.otherMb);
}

/** A bare warm page per caller: the ceiling. */
async function openCeiling(executablePath: string, output: Output, concurrency: number) {
  const browser = await chromium.launch({ executablePath, args: chromiumArgs() });
  const pages: Page[] = [];
  for (let i = 0; i < concurrency; i++) {
    const page = await (await browser.newContext({ viewport: A4_VIEWPORT, deviceScaleFactor: 1 })).newPage();
    await page.emulateMedia({ media: 'print' });
    pages.push(page);
  }
  const renderOnce: RenderOnce = async (worker) => {
    const page = pages[worker]!;
    await page.setContent(invoiceHtml);
    const bytes =
      output === 'pdf' ? await page.pdf({ format: 'A4', printBackground: true }) : await page.screenshot({ type: 'png', fullPage: true });
    return bytes.byteLength;
  };
  return { renderOnce, close: () => browser.close() };
}

/**
 * For one output: the service is started once; for each concurrency the ceiling and the service
 * take turns, ROUNDS chunks each, so that the load of a shared machine falls on both alike.
 */
async function benchOutput(executablePath: string, output: Output): Promise<Row[]> {
  const nodeArgs = flags['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${flags['cpu-prof']}`] : [];
  const svc = await startEmbedded({ PRESSROOM_LOG_LEVEL: 'warn', ...serviceEnv }, { nodeArgs });
  const servicePid = svc.app.pid;
  const rows: Row[] = [];
  const body = JSON.stringify({ html: invoiceHtml, ...(output === 'png' ? { convertToImage: true } : {}) });
  const service: RenderOnce = async () => {
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
  try {
    for (const concurrency of CONCURRENCY) {
      const ceiling = await openCeiling(executablePath, output, concurrency);
      try {
        for (let i = 0; i < WARMUP; i++) {
          await ceiling.renderOnce(i % concurrency);
          await service(i);
        }
        const bare = new Tally();
        const ours = new Tally();
        const perRound = Math.ceil(N / ROUNDS);
        for (let round = 0; round < ROUNDS; round++) {
          const n = Math.min(perRound, N - round * perRound);
          if (n <= 0) break;
          await chunk(bare, n, concurrency, ceiling.renderOnce, { root: process.pid, skip: servicePid, countRoot: false });
          await chunk(ours, n, concurrency, service, { root: servicePid, countRoot: true });
        }
        const b = bare.result();
        const o = ours.result();
        const ceilingRow: Row = {
          path: 'ceiling',
          output,
          concurrency,
          ...b,
          serviceCpuMs: null,
          serviceRssMb: null,
          chromiumRssMb: bare.peakChromiumMb,
          ratio: null,
        };
        const serviceRow: Row = {
          path: 'embedded sync',
          output,
          concurrency,
          ...o,
          serviceCpuMs: ours.nodeCpuMs / Math.max(1, o.renders),
          serviceRssMb: ours.peakNodeMb,
          chromiumRssMb: ours.peakChromiumMb,
          ratio: o.rendersPerSecond / b.rendersPerSecond,
        };
        rows.push(ceilingRow, serviceRow);
        printRow(ceilingRow);
        printRow(serviceRow);
      } finally {
        await ceiling.close();
      }
    }
  } finally {
    await svc.app.stop();
  }
  return rows;
}

// ---- output --------------------------------------------------------------------------------

const HEADER = [
  'path',
  'output',
  'conc',
  'renders/s',
  'p50 ms',
  'p95 ms',
  'p99 ms',
  'CPU ms/render',
  'service CPU ms',
  'Chromium CPU ms',
  'service RSS MB',
  'Chromium RSS MB',
  'bytes',
  'ratio',
];

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
  console.log(
    cells(r)
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join(' '),
  );
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
  `Invoice fixture (2-page A4), ${N} renders per row after ${WARMUP} warm-up, ceiling and service taking turns in ${ROUNDS} rounds, ${executablePath.split('/').pop()} ${version}, ` +
  `${cpus().length} cores, ${started.toISOString()}` +
  (flags.label ? `, ${flags.label}` : '') +
  ', service log level warn (its lines are kept by the bench)' +
  (Object.keys(serviceEnv).length ? `, service env ${flags.env.join(' ')}` : '') +
  '. Ceiling = bare warm Playwright page (setContent + pdf/screenshot); ratio = renders/s against the ceiling row of the same output and concurrency. ' +
  'CPU ms/render counts the whole machine (shared: other work shows up here too); service CPU (its Node processes) and Chromium CPU (its processes) are per render, from /proc/<pid>/stat.';
console.log(meta);
console.log(HEADER.join(' | '));

const rows: Row[] = [];
for (const output of OUTPUTS) {
  rows.push(...(await benchOutput(executablePath, output)));
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
