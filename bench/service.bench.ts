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
//   npm run bench -- --cpu-prof /tmp/prof           # the service's processes (with --distributed, every app) and its renderer host write V8 CPU profiles there on exit
//   npm run bench -- --label "after X"              # names the results file
//   npm run bench -- --distributed --stack-warmup 0 # no unmeasured renders before a distributed stack's first row (default 300)
//   npm run bench -- --repeat 0.5 --env 'PRESSROOM_PLANS={"standard":{"renderCache":true},"high":{"renderCache":true}}'
//                                                   # that share of the service's requests repeats one
//                                                   # identical render (the render cache), the rest unique
//   npm run bench:renderer                          # the renderer alone against bare Playwright
//
// Results: bench/results/<timestamp>.md and .json, and bench/results/latest.md (shown in the README).
import { chmodSync, mkdirSync, readFileSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { quantile } from './quantile.ts';
import { positiveInt } from './positive-int.ts';
import { cpus } from 'node:os';
import { chromiumArgs, resolveChromiumPath, A4_VIEWPORT } from '@pressroom/renderer';
import { chromium, type Page } from 'playwright';
import { startEmbedded } from '../test/support/embedded-service.ts';
import { distributedBenchEnv, removeRunBucket } from './distributed-env.ts';
import { envFlags } from './env-flags.ts';

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
    // Issue 13's further rows (off by default, so that `npm run bench` stays short): see extraRows().
    distributed: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1,2' },
    backlog: { type: 'string', default: '0' },
    // Sync renders in each backlog row: a p95 of 40 is the second slowest of 40, one stall's worth.
    'backlog-n': { type: 'string', default: '200' },
    repeat: { type: 'string', default: '0' },
    // Sync renders each distributed stack is given, unmeasured, before its first row: see warmStack().
    'stack-warmup': { type: 'string', default: '300' },
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
const BACKLOG_N = positiveInt(flags['backlog-n'], '--backlog-n');
const REPEAT = Number(flags.repeat);
const STACK_WARMUP = Number(flags['stack-warmup']);
if (!(Number.isInteger(STACK_WARMUP) && STACK_WARMUP >= 0))
  throw new Error(`--stack-warmup: a whole number of renders, got ${flags['stack-warmup']}`);
if (!(REPEAT >= 0 && REPEAT <= 1)) throw new Error(`--repeat: a share from 0 to 1, got ${flags.repeat}`);
const serviceEnv = envFlags(flags.env);

// The shared fixture (/work/shared/fixtures/invoice) is copied into the repository so the bench runs anywhere.
const fixtures = new URL('../test/fixtures/invoice/', import.meta.url);
const invoiceHtml = readFileSync(new URL('invoice.html', fixtures), 'utf8');

type Output = 'pdf' | 'png';
type Path = 'ceiling' | 'embedded sync' | (string & {});

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
  /**
   * The ratio of each round apart (the service's chunk against the ceiling's chunk just before it):
   * how far one run's ratio could move with the moment, printed as its lowest and highest.
   */
  roundRatios?: number[];
  /** Said after the ratio (e.g. a backlog row's p95 against the idle row's). */
  note?: string;
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
  /** Subtrees left out (the service's, when the ceiling's browser is counted among the bench's children). */
  skip?: number | number[];
  /** More roots counted like `root` (the distributed profile's apps, each its own process). */
  roots?: number[];
  countRoot: boolean;
}

function treeMembers(spec: TreeSpec): ProcInfo[] {
  const all = processes();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: ProcInfo[] = [];
  const roots = new Set([spec.root, ...(spec.roots ?? [])]);
  const skips = new Set([spec.skip ?? []].flat());
  const queue = all.filter((p) => roots.has(p.pid));
  while (queue.length) {
    const p = queue.pop()!;
    if (skips.has(p.pid)) continue;
    if (!roots.has(p.pid) || spec.countRoot) out.push(p);
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
      // With cutime + cstime: the CPU of its children that exited (a renderer of a closed context).
      out.set(p.pid, { ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]), chromium: isChromium(p) });
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * CPU ms the tree's processes used between two snapshots, split into Chromium and the rest: the
 * sums of the snapshots subtracted, not each process's own difference. A process that exited in
 * between (a renderer of a recycled page) is in the first sum only, and its whole life reappears
 * in its parent's cutime in the second; taken process by process, that life was counted twice
 * (once as it ran, again when reaped), which put a row's Chromium CPU at 231 and 291 ms per
 * render where its neighbours read 41-68 (the rows whose pages were recycled).
 */
function cpuBetween(before: ReturnType<typeof treeCpu>, after: ReturnType<typeof treeCpu>) {
  const sums = (snapshot: ReturnType<typeof treeCpu>) => {
    let chromium = 0;
    let other = 0;
    for (const p of snapshot.values()) {
      if (p.chromium) chromium += p.ticks;
      else other += p.ticks;
    }
    return { chromium, other };
  };
  const [a, b] = [sums(before), sums(after)];
  return { chromiumMs: ((b.chromium - a.chromium) * 1000) / CLK_TCK, otherMs: ((b.other - a.other) * 1000) / CLK_TCK };
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
  /** Renders/s of each chunk, in the order run (a round's chunk each). */
  chunkRates: number[] = [];

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
  const doneBefore = tally.latencies.length;
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
  const seconds = (performance.now() - started) / 1000;
  tally.seconds += seconds;
  tally.chunkRates.push((tally.latencies.length - doneBefore) / seconds);
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
/**
 * Node flags of every service process under test: with --cpu-prof, each writes a V8 CPU profile
 * there on exit. The renderer host (a child of the service, run as an unprivileged user when the
 * service runs as root) writes its profile there too: the folder must be writable by it.
 */
function profilingArgs(): string[] {
  const dir = flags['cpu-prof'];
  if (!dir) return [];
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o777);
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

async function benchOutput(executablePath: string, output: Output): Promise<Row[]> {
  const svc = await startEmbedded({ PRESSROOM_LOG_LEVEL: 'warn', ...serviceEnv }, { nodeArgs: profilingArgs() });
  const servicePid = svc.app.pid;
  const rows: Row[] = [];
  const bodyOf = (html: string) => JSON.stringify({ html, ...(output === 'png' ? { convertToImage: true } : {}) });
  const repeated = bodyOf(invoiceHtml);
  // With --repeat: request k repeats the invoice when the share of repeats so far falls behind
  // REPEAT (evenly spread, the same in every run); every other request is made unique by a comment.
  let sent = 0;
  let unique = 0;
  const nextBody = () => {
    sent++;
    if (REPEAT > 0 && Math.floor(sent * REPEAT) > Math.floor((sent - 1) * REPEAT)) return repeated;
    return REPEAT > 0 ? bodyOf(`${invoiceHtml}<!-- unique ${process.pid}-${++unique} -->`) : repeated;
  };
  const service: RenderOnce = async () => {
    const body = nextBody();
    const res = await postRender(svc, '/v1/html-to-pdf/sync', body);
    const json = res.json as { signedUrl?: string };
    if (res.status !== 200 || !json.signedUrl) throw new Error(`sync answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
    return download(json.signedUrl);
  };
  try {
    const path: Path = REPEAT > 0 ? `embedded sync, ${Math.round(REPEAT * 100)} % repeat` : 'embedded sync';
    for (const concurrency of CONCURRENCY) {
      rows.push(...(await againstCeiling(path, output, concurrency, service, { root: servicePid, countRoot: true })));
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
    (r.ratio === null ? '' : `${r.ratio.toFixed(2)}×`) +
      (r.roundRatios ? ` (rounds ${Math.min(...r.roundRatios).toFixed(2)}–${Math.max(...r.roundRatios).toFixed(2)})` : '') +
      (r.note ? ` ${r.note}` : '') +
      (r.failed ? ` (${r.failed} failed)` : ''),
  ];
}

function printRow(r: Row): void {
  const widths = [Math.max(13, r.path.length), 6, 4, 9, 7, 7, 7, 13, 14, 15, 14, 15, 8, 12];
  console.log(
    cells(r)
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join(' '),
  );
}

/** Lines said under the table (the distributed rows' partitions, shares per worker, one against two workers). */
const notes: string[] = [];

function markdown(rows: Row[], meta: string): string {
  const line = (c: string[]) => `| ${c.join(' | ')} |`;
  return [
    meta,
    '',
    line(HEADER),
    line(HEADER.map(() => '---')),
    ...rows.map((r) => line(cells(r))),
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
}

// ---- distributed profile and backlog rows (issue 13) -----------------------------------------
//
//   npm run bench -- --distributed               # also the distributed profile (shared infra of
//                                                # /work/main/.infra/env or the environment): sync and
//                                                # async end to end (webhook received), one then two
//                                                # render workers (--workers 1,2), PDF
//   npm run bench -- --backlog 1000              # also embedded sync idle, then under 1,000 queued
//                                                # (--backlog-n sync renders per row, default 200)
//                                                # async renders (the lanes): p95 against idle
//   npm run bench -- --outputs pdf --concurrency 1 --distributed --backlog 1000 --no-write

/** A service under test, whichever profile: its URL, key and the process trees whose CPU and RSS count. */
interface ServiceUnderTest {
  baseUrl: string;
  apiKey: string;
  tree: TreeSpec;
}

/** POST …/sync, then the GET of the signedUrl: the caller's whole wait. */
function syncRender(svc: ServiceUnderTest, body: string): RenderOnce {
  return async () => {
    const res = await postRender(svc, '/v1/html-to-pdf/sync', body);
    const json = res.json as { signedUrl?: string };
    if (res.status !== 200 || !json.signedUrl) throw new Error(`sync answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
    return download(json.signedUrl);
  };
}

/** A POST of a JSON body with the service's API key: its status and parsed body. */
async function postRender(
  svc: { baseUrl: string; apiKey: string },
  path: string,
  body: string,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, json: await res.json() };
}

async function download(url: string): Promise<number> {
  const file = await fetch(url);
  if (file.status !== 200) throw new Error(`the signed URL answered ${file.status}`);
  return (await file.arrayBuffer()).byteLength;
}

/** A caller's webhook endpoint: hands each webhook body to whoever waits for its requestId. */
async function webhookInbox() {
  const { createServer } = await import('node:http');
  const arrived = new Map<string, WebhookBody>();
  const waiting = new Map<string, (b: WebhookBody) => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookBody;
        const wake = waiting.get(body.requestId);
        if (wake) wake(body);
        else arrived.set(body.requestId, body);
      } catch {
        /* not ours */
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    /** Webhooks received that nobody waited for (the backlog's). */
    received: () => arrived.size,
    wait(requestId: string, timeoutMs = 120_000): Promise<WebhookBody> {
      const early = arrived.get(requestId);
      if (early) {
        arrived.delete(requestId);
        return Promise.resolve(early);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(requestId);
          reject(new Error(`no webhook for ${requestId} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(requestId, (b) => {
          clearTimeout(timer);
          waiting.delete(requestId);
          resolve(b);
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface WebhookBody {
  requestId: string;
  renderStatus: string;
  signedUrl?: string;
}

/** POST …/async with a webhook, then wait for the webhook and GET its signedUrl: end to end. */
function asyncRender(svc: ServiceUnderTest, html: string, inbox: Awaited<ReturnType<typeof webhookInbox>>): RenderOnce {
  const body = JSON.stringify({ html, webhook: inbox.url });
  return async () => {
    const res = await postRender(svc, '/v1/html-to-pdf/async', body);
    const json = res.json as { requestId?: string };
    if (res.status !== 200 || !json.requestId) throw new Error(`async answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
    const hook = await inbox.wait(json.requestId);
    if (hook.renderStatus !== 'SUCCESS' || !hook.signedUrl) throw new Error(`webhook said ${JSON.stringify(hook).slice(0, 200)}`);
    return download(hook.signedUrl);
  };
}

/**
 * One row of `path` against the ceiling at `concurrency`, taking turns as benchOutput does; the
 * ceiling row is printed and returned too (each row's ratio is to the ceiling of its own turns).
 */
async function againstCeiling(path: Path, output: Output, concurrency: number, service: RenderOnce, tree: TreeSpec): Promise<Row[]> {
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
      await chunk(bare, n, concurrency, ceiling.renderOnce, {
        root: process.pid,
        skip: [tree.root, ...(tree.roots ?? [])],
        countRoot: false,
      });
      await chunk(ours, n, concurrency, service, tree);
    }
    const rows = [ceilingRow(bare, output, concurrency), serviceRow(path, ours, bare, output, concurrency)];
    rows.forEach(printRow);
    return rows;
  } finally {
    await ceiling.close();
  }
}

function ceilingRow(bare: Tally, output: Output, concurrency: number): Row {
  return {
    path: 'ceiling',
    output,
    concurrency,
    ...bare.result(),
    serviceCpuMs: null,
    serviceRssMb: null,
    chromiumRssMb: bare.peakChromiumMb,
    ratio: null,
  };
}

function serviceRow(path: Path, ours: Tally, bare: Tally | null, output: Output, concurrency: number): Row {
  const o = ours.result();
  return {
    path,
    output,
    concurrency,
    ...o,
    serviceCpuMs: ours.nodeCpuMs / Math.max(1, o.renders),
    serviceRssMb: ours.peakNodeMb,
    chromiumRssMb: ours.peakChromiumMb,
    ratio: bare ? o.rendersPerSecond / bare.result().rendersPerSecond : null,
    ...(bare && bare.chunkRates.length === ours.chunkRates.length && ours.chunkRates.length > 1
      ? { roundRatios: ours.chunkRates.map((rate, i) => rate / (bare.chunkRates[i] as number)) }
      : {}),
  };
}

/**
 * The distributed profile on the shared Kafka, registry, Redis and S3 (their addresses from the
 * environment, as /work/main/.infra/env exports them), each app its own process, with a topic,
 * Redis, subject prefix and bucket of its own run; `workers` render workers share one lane through
 * the consumer group (as many partitions as workers, at least 2).
 */
async function startDistributed(workers: number) {
  const { randomBytes } = await import('node:crypto');
  const { AppProcess, freePort } = await import('../test/support/service-process.ts');
  const run = `bench-${randomBytes(4).toString('hex')}`;
  const ingressPort = await freePort();
  const apiKey = `prk_test_${randomBytes(16).toString('hex')}`;
  const env = distributedBenchEnv({ run, ingressPort, apiKey, partitions: Math.max(2, workers), extra: serviceEnv });
  const apps: InstanceType<typeof AppProcess>[] = [];
  const start = async (name: 'ingress' | 'render-worker' | 'status-projector' | 'webhook-dispatcher', port?: number) => {
    const p = new AppProcess(name, env, port ?? (await freePort()), profilingArgs());
    apps.push(p);
    return p.start();
  };
  try {
    await start('ingress', ingressPort);
    await Promise.all([start('status-projector'), start('webhook-dispatcher')]);
    for (let i = 0; i < workers; i++) await start('render-worker');
  } catch (err) {
    await Promise.all(apps.map((a) => a.stop()));
    await removeRunBucket(env);
    throw err;
  }
  const pids = apps.map((a) => a.pid);
  const svc: ServiceUnderTest = {
    baseUrl: `http://127.0.0.1:${ingressPort}`,
    apiKey,
    tree: { root: pids[0]!, roots: pids.slice(1), countRoot: true },
  };
  const workerUrls = apps.filter((a) => a.app === 'render-worker').map((a) => a.url);
  return {
    svc,
    /** The partitions of the two lane topics, as the broker reports them (not as configured). */
    lanePartitions: () => lanePartitions(env.KAFKA_BROKERS!, run),
    /** Renders each render worker did so far (its /metrics), in start order. */
    rendersPerWorker: () =>
      Promise.all(workerUrls.map(async (url) => metricSum(await (await fetch(`${url}/metrics`)).text(), 'pressroom_renders_total'))),
    stop: () => Promise.all(apps.map((a) => a.stop())).then(() => removeRunBucket(env)),
  };
}

async function lanePartitions(brokers: string, prefix: string): Promise<Record<string, number>> {
  const { Kafka, logLevel } = await import('kafkajs');
  const { topicNames } = await import('@pressroom/core');
  const names = topicNames(prefix);
  const admin = new Kafka({ clientId: `${prefix}-bench`, brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [names.requestedSync, names.requestedAsync] });
    return Object.fromEntries(topics.map((t) => [t.name, t.partitions.length]));
  } finally {
    await admin.disconnect();
  }
}

/** A metric summed over its label sets, from Prometheus text. */
function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    const v = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(v)) sum += v;
  }
  return sum;
}

/**
 * Renders/s one core could sustain at a row's CPU per render: Pressroom's own processes (service
 * Node + Chromium) only, the broker, registry, Redis and S3 left out (they are shared infrastructure
 * here, on other machines in a fleet).
 */
function perCore(r: Row): number {
  return 1000 / Math.max(1, (r.serviceCpuMs ?? 0) + r.chromiumCpuMs);
}

/**
 * Gives a distributed stack STACK_WARMUP sync renders at concurrency 2 before its first row, none
 * of them measured. The broker and the registry are JVMs, started by infra/up.sh and shared by
 * every stack of the run: fresh, they cost several times more per request for their first few
 * thousand requests (their JIT; the broker's CPU per render fell 19.1 → 7.8 ms over a session's
 * first four runs, docs/performance-history.md, session 18), and the apps' Node processes are
 * just started too. A deployment serves its traffic warm; the ceiling it is set against is a warm
 * page. A row's own 5 warm-up renders are too few for that, so without this the first
 * distributed row measured the JIT of the infrastructure (`--stack-warmup 0` shows it).
 */
async function warmStack(label: string, svc: ServiceUnderTest): Promise<string | undefined> {
  if (STACK_WARMUP === 0) return undefined;
  const render = syncRender(svc, JSON.stringify({ html: invoiceHtml }));
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    [0, 1].map(async (worker) => {
      while (next < STACK_WARMUP) {
        next++;
        await render(worker).catch(() => failed++);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return `${label}: ${STACK_WARMUP} sync renders at concurrency 2 before its rows, not measured (${seconds.toFixed(0)} s${failed ? `, ${failed} failed` : ''})`;
}

/** Distributed sync and async (webhook received), PDF, for each worker count and concurrency. */
async function distributedRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const inbox = await webhookInbox();
  const scale: { workers: number; row: Row }[] = [];
  try {
    for (const workers of flags.workers.split(',').map((w) => positiveInt(w, '--workers'))) {
      const { svc, stop, lanePartitions, rendersPerWorker } = await startDistributed(workers);
      try {
        const label = `${workers} worker${workers > 1 ? 's' : ''}`;
        const partitions = await lanePartitions();
        const laneNote = `${label}, lane topics: ${Object.entries(partitions)
          .map(([t, n]) => `${t} ${n} partitions`)
          .join(', ')}`;
        notes.push(laneNote);
        console.log(`  ${laneNote}`);
        if (Object.values(partitions).some((n) => n < workers))
          console.warn(`  fewer partitions than workers: some worker has no share of a lane`);
        const warmNote = await warmStack(label, svc);
        if (warmNote) {
          notes.push(warmNote);
          console.log(`  ${warmNote}`);
        }
        for (const concurrency of CONCURRENCY) {
          const before = await rendersPerWorker();
          const sync = await againstCeiling(
            `distributed sync, ${label}`,
            'pdf',
            concurrency,
            syncRender(svc, JSON.stringify({ html: invoiceHtml })),
            svc.tree,
          );
          const async = await againstCeiling(
            `distributed async, ${label}`,
            'pdf',
            concurrency,
            asyncRender(svc, invoiceHtml, inbox),
            svc.tree,
          );
          const after = await rendersPerWorker();
          const shares = after.map((n, i) => n - (before[i] ?? 0));
          const shareNote = `${label}, concurrency ${concurrency}: renders per worker (their /metrics, both rows with warm-up) ${shares.join(' + ')}`;
          notes.push(shareNote);
          console.log(`  ${shareNote}`);
          for (const r of [sync[1]!, async[1]!]) {
            r.note = `${perCore(r).toFixed(1)}/core`;
            scale.push({ workers, row: r });
          }
          rows.push(...sync, ...async);
        }
      } finally {
        await stop();
      }
    }
  } finally {
    await inbox.close();
  }
  // One worker against more, row by row (same path and concurrency).
  for (const { workers, row } of scale) {
    if (workers === scale[0]!.workers) continue;
    const base = scale.find(
      (s) =>
        s.workers === scale[0]!.workers && s.row.concurrency === row.concurrency && s.row.path.split(',')[0] === row.path.split(',')[0],
    );
    if (!base) continue;
    const line =
      `${row.path.split(',')[0]}, concurrency ${row.concurrency}: ${base.workers} → ${workers} workers ` +
      `${base.row.rendersPerSecond.toFixed(1)} → ${row.rendersPerSecond.toFixed(1)} renders/s (×${(row.rendersPerSecond / base.row.rendersPerSecond).toFixed(2)}); ` +
      `app CPU per render ${((base.row.serviceCpuMs ?? 0) + base.row.chromiumCpuMs).toFixed(0)} → ${((row.serviceCpuMs ?? 0) + row.chromiumCpuMs).toFixed(0)} ms ` +
      `(${perCore(base.row).toFixed(1)} → ${perCore(row).toFixed(1)} renders/s per core; ${cpus().length} cores here)`;
    notes.push(line);
    console.log(`  ${line}`);
  }
  return rows;
}

/**
 * The lanes: an embedded service's sync p95 idle, then with `backlog` async renders accepted and
 * waiting (posted before the measurement, 16 at a time). The backlog row's note is its p95 against
 * the idle row's (the target: within 1.2×).
 */
async function backlogRows(backlog: number): Promise<Row[]> {
  const svc = await startEmbedded({ PRESSROOM_LOG_LEVEL: 'warn', ...serviceEnv });
  const inbox = await webhookInbox(); // the async renders need a webhook; nobody waits for it
  const tree: TreeSpec = { root: svc.app.pid, countRoot: true };
  const sync = syncRender({ baseUrl: svc.baseUrl, apiKey: svc.apiKey, tree }, JSON.stringify({ html: invoiceHtml }));
  try {
    for (let i = 0; i < WARMUP; i++) await sync(i);
    const idle = new Tally();
    await chunk(idle, BACKLOG_N, 1, sync, tree);
    const asyncBody = JSON.stringify({ html: invoiceHtml, webhook: inbox.url });
    let posted = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (posted < backlog) {
          posted++;
          const res = await postRender(svc, '/v1/html-to-pdf/async', asyncBody);
          if (res.status !== 200) throw new Error(`async answered ${res.status}: ${JSON.stringify(res.json).slice(0, 200)}`);
        }
      }),
    );
    const loaded = new Tally();
    await chunk(loaded, BACKLOG_N, 1, sync, tree);
    // The backlog must outlast the row: how many of the async renders were done by its end.
    const delivered = inbox.received();
    const idleRow = serviceRow('embedded sync, idle', idle, null, 'pdf', 1);
    const loadedRow = serviceRow(`embedded sync, ${backlog} async queued`, loaded, null, 'pdf', 1);
    const ratio = loadedRow.p95 / idleRow.p95;
    loadedRow.note = `p95 ${ratio.toFixed(2)}× idle (target ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'not met'})`;
    notes.push(
      `backlog: sync p95 ${idleRow.p95.toFixed(0)} ms idle, ${loadedRow.p95.toFixed(0)} ms with ${backlog} async renders queued: ${ratio.toFixed(2)}× (target ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'not met'}); ${BACKLOG_N} sync renders per row; ${delivered} of the ${backlog} async renders delivered by the loaded row's end`,
    );
    [idleRow, loadedRow].forEach(printRow);
    return [idleRow, loadedRow];
  } finally {
    await svc.app.stop();
    await inbox.close();
  }
}

/** The rows behind options (--distributed, --backlog), after the default ones. */
async function extraRows(): Promise<Row[]> {
  const rows: Row[] = [];
  if (flags.distributed) rows.push(...(await distributedRows()));
  const backlog = Number(flags.backlog);
  if (backlog > 0) rows.push(...(await backlogRows(backlog)));
  return rows;
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
  (REPEAT > 0 ? `, ${Math.round(REPEAT * 100)} % of the service's requests repeat one identical render (the rest unique)` : '') +
  (flags.distributed && STACK_WARMUP > 0
    ? `, each distributed stack given ${STACK_WARMUP} unmeasured sync renders before its first row`
    : '') +
  '. Ceiling = bare warm Playwright page (setContent + pdf/screenshot); ratio = renders/s against the ceiling row of the same output and concurrency. ' +
  'CPU ms/render counts the whole machine (shared: other work shows up here too); service CPU (its Node processes) and Chromium CPU (its processes) are per render, from /proc/<pid>/stat.';
console.log(meta);
console.log(HEADER.join(' | '));

const rows: Row[] = [];
for (const output of OUTPUTS) {
  rows.push(...(await benchOutput(executablePath, output)));
}
rows.push(...(await extraRows()));

if (!flags['no-write']) {
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const md = markdown(rows, meta);
  writeFileSync(new URL(`${stamp}.md`, dir), md);
  writeFileSync(
    new URL(`${stamp}.json`, dir),
    JSON.stringify({ meta, executablePath, version, env: serviceEnv, rows, notes }, null, 2) + '\n',
  );
  copyFileSync(new URL(`${stamp}.md`, dir), new URL('latest.md', dir));
  console.log(`\nwritten: bench/results/${stamp}.md (.json), bench/results/latest.md`);
}
