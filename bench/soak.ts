// The soak (issue 13): the embedded service held at 80 % of its capacity for a long run, watching
// for leaks (RSS, open file descriptors) and for renders that fail when a page or the browser is
// recycled. Not part of `npm test` (it takes --minutes, default 20).
//
//   npm run soak                                  # measure capacity (30 s), then 20 minutes at 80 % of it
//   npm run soak -- --minutes 2                   # a short check (figures are indicative)
//   npm run soak -- --rate 6                      # a fixed rate (renders/s) instead of measuring capacity
//   npm run soak -- --load 0.8 --sample 10        # the share of capacity, the sampling period (s)
//   npm run soak -- --env PRESSROOM_RENDER_RECYCLE_AFTER=20   # a setting of the service (repeatable);
//                                                 # this one makes page recycles frequent
//   npm run soak -- --label "quiet machine" --no-write
//   npm run soak -- --service-log /tmp/soak-service.log --env PRESSROOM_LOG_LEVEL=info
//                                                 # the service's own log lines, written there at the end
//                                                 # (their `time` against the samples' t: snapshot saves, sweeps)
//
// What it does: starts `npm start`'s embedded profile as its own process (as `npm run bench` does,
// default settings, log level warn), measures its capacity with --capacity-concurrency closed-loop
// callers for --capacity-seconds (unless --rate), then sends sync renders of the shared invoice
// fixture (POST /v1/html-to-pdf/sync, then a GET of the signedUrl, checked to be a PDF) at
// --load × capacity, evenly spaced (open loop: a slow answer does not slow the arrivals). Every
// --sample seconds it records, for the service's Node processes (app, renderer host) and for
// Chromium's apart: RSS and open fds (/proc/<pid>/status and /proc/<pid>/fd, summed), process
// counts; the renders ok, failed (by code) and answered 202; and from the service's /metrics the
// pages replaced (pressroom_page_pool_replacements_total: recycled after
// PRESSROOM_RENDER_RECYCLE_AFTER jobs, spoiled, or a failed reset) and renderer host restarts
// (pressroom_page_pool_restarts_total: the host and its Chromium started again).
//
// At the end it prints and writes bench/results/<time>-soak.md and .json: growth of RSS and fds
// (RSS: median of the last 3 samples against the median of the first 3 samples after --settle
// seconds; fds: the fewest held in the last minute against the fewest in the first steady minute,
// since the connections and file writes of the moment lift single samples, while a leak lifts the floor;
// the view snapshot files the service reads from are counted apart and judged by their bound, a base
// and a delta per indexed view, since the first saves open them one by one),
// failures and whether any fell near a page replacement or host restart, with a pass/fail per target
// (RSS growth < 10 %, no fd growth, no failed render caused by a recycle). Exit status 0 either way
// unless the run itself broke; the verdicts are in the output.
import { mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cpus, loadavg } from 'node:os';
import { startEmbedded } from '../test/support/embedded-service.ts';
import { metricValue, verdicts, floorGrowth, growth, recycleSuspects, type SoakFailure, type SoakSample } from './soak-report.ts';

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '20' },
    rate: { type: 'string' },
    load: { type: 'string', default: '0.8' },
    sample: { type: 'string', default: '10' },
    settle: { type: 'string' },
    'capacity-seconds': { type: 'string', default: '30' },
    'capacity-concurrency': { type: 'string', default: '4' },
    'max-in-flight': { type: 'string', default: '64' },
    env: { type: 'string', multiple: true, default: [] },
    label: { type: 'string', default: '' },
    'no-write': { type: 'boolean', default: false },
    'service-log': { type: 'string' },
  },
});

const MINUTES = positive(flags.minutes, '--minutes');
const LOAD = positive(flags.load, '--load');
const SAMPLE_S = positive(flags.sample, '--sample');
// The first minutes hold the start's own growth (warm pages, JIT, caches): left out of the growth figures.
const SETTLE_S = flags.settle !== undefined ? Number(flags.settle) : Math.min(120, MINUTES * 60 * 0.2);
const CAPACITY_S = positive(flags['capacity-seconds'], '--capacity-seconds');
const CAPACITY_CONCURRENCY = Math.round(positive(flags['capacity-concurrency'], '--capacity-concurrency'));
const MAX_IN_FLIGHT = Math.round(positive(flags['max-in-flight'], '--max-in-flight'));
const serviceEnv = Object.fromEntries(
  flags.env.map((kv) => {
    const at = kv.indexOf('=');
    if (at < 1) throw new Error(`--env NAME=value, got ${kv}`);
    return [kv.slice(0, at), kv.slice(at + 1)];
  }),
);

function positive(value: string, name: string): number {
  const n = Number(value);
  if (!(n > 0)) throw new Error(`${name} must be a positive number, got ${value}`);
  return n;
}

const invoiceHtml = readFileSync(new URL('../test/fixtures/invoice/invoice.html', import.meta.url), 'utf8');
const body = JSON.stringify({ html: invoiceHtml });

// ---- /proc -----------------------------------------------------------------------------------

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  rssKb: number;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const field = (key: string) => new RegExp(`^${key}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim() ?? '';
      out.push({ pid: Number(name), ppid: Number(field('PPid')), comm: field('Name'), rssKb: parseInt(field('VmRSS'), 10) || 0 });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** `root` and every process under it. */
function tree(root: number): Proc[] {
  const all = processes();
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: Proc[] = [];
  const queue = all.filter((p) => p.pid === root);
  while (queue.length) {
    const p = queue.pop()!;
    out.push(p);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** A view snapshot file (libs/core/src/view-snapshots.ts), or one replaced by a save and not yet closed. */
const SNAPSHOT_FILE = /\.snapshot( \(deleted\))?$/;

/**
 * Open descriptors of `pid`, and (with `classify`: a readlink per descriptor) how many of them are
 * sockets and how many are view snapshot files.
 */
function fdCount(pid: number, classify: boolean): { fds: number; sockets: number; snapshots: number } {
  let names: string[];
  try {
    names = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return { fds: 0, sockets: 0, snapshots: 0 }; // gone meanwhile
  }
  let sockets = 0;
  let snapshots = 0;
  for (const fd of classify ? names : []) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('socket:')) sockets++;
      else if (SNAPSHOT_FILE.test(target)) snapshots++;
    } catch {
      // closed meanwhile
    }
  }
  return { fds: names.length, sockets, snapshots };
}

const isChromium = (p: Proc) => /chrom|headless/i.test(p.comm);

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return ''; // gone meanwhile
  }
}
/** Which of the service's Node processes `p` is, from its command line: the app, its renderer host, or neither. */
function role(p: Proc): 'app' | 'host' | undefined {
  if (p.comm !== 'node') return undefined;
  const args = cmdline(p.pid);
  if (args.includes('renderer-host')) return 'host';
  return args.includes('apps/standalone/src/main.ts') ? 'app' : undefined;
}

function usage(root: number) {
  const u = {
    serviceRssMb: 0,
    chromiumRssMb: 0,
    appRssMb: 0,
    hostRssMb: 0,
    serviceFds: 0,
    chromiumFds: 0,
    serviceSockets: 0,
    serviceSnapshotFds: 0,
    serviceProcesses: 0,
    chromiumProcesses: 0,
  };
  for (const p of tree(root)) {
    if (isChromium(p)) {
      u.chromiumRssMb += p.rssKb / 1024;
      u.chromiumFds += fdCount(p.pid, false).fds;
      u.chromiumProcesses++;
    } else {
      u.serviceRssMb += p.rssKb / 1024;
      const held = fdCount(p.pid, true);
      u.serviceFds += held.fds;
      u.serviceSockets += held.sockets;
      u.serviceSnapshotFds += held.snapshots;
      u.serviceProcesses++;
      const r = role(p);
      if (r === 'host') u.hostRssMb += p.rssKb / 1024;
      else if (r === 'app') u.appRssMb += p.rssKb / 1024;
    }
  }
  return u;
}

// ---- the service -----------------------------------------------------------------------------

const started = new Date();
console.log(
  `soak: embedded service, invoice fixture, ${MINUTES} min at ${flags.rate ? `${flags.rate} renders/s` : `${LOAD * 100} % of capacity`}, sampling every ${SAMPLE_S} s (steady from ${SETTLE_S} s); ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`,
);
const svc = await startEmbedded({ PRESSROOM_LOG_LEVEL: 'warn', ...serviceEnv });
const root = svc.app.pid;

class RenderError extends Error {
  readonly code: string;
  constructor(code: string) {
    super(code);
    this.code = code;
  }
}

/** One sync render and its download; resolves 'ok' or 'fallback' (answered 202), or throws a RenderError with the code. */
async function renderOnce(): Promise<'ok' | 'fallback'> {
  let res: Response;
  try {
    res = await fetch(`${svc.baseUrl}/v1/html-to-pdf/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body,
    });
  } catch (err) {
    throw new RenderError(`NETWORK (${(err as Error).message})`);
  }
  const json = (await res.json().catch(() => ({}))) as { signedUrl?: string; error?: { code?: string } };
  if (res.status === 202) return 'fallback';
  if (res.status !== 200 || !json.signedUrl) throw new RenderError(json.error?.code ?? `HTTP ${res.status}`);
  const file = await fetch(json.signedUrl);
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (file.status !== 200) throw new RenderError(`DOWNLOAD HTTP ${file.status}`);
  if (new TextDecoder().decode(bytes.subarray(0, 5)) !== '%PDF-') throw new RenderError('NOT_A_PDF');
  return 'ok';
}

let lastScrape = { pagesReplaced: 0, hostRestarts: 0, renderFailures: 0, appHeapTotalMb: 0, appHeapUsedMb: 0, appExternalMb: 0 };
const MB = 1024 * 1024;
let scrapesMissed = 0;
/** The service's counters; when /metrics does not answer, the last ones read (and the miss is counted). */
async function scrape(): Promise<typeof lastScrape> {
  try {
    const res = await fetch(`${svc.baseUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
    const text = await res.text();
    lastScrape = {
      pagesReplaced: metricValue(text, 'pressroom_page_pool_replacements_total'),
      hostRestarts: metricValue(text, 'pressroom_page_pool_restarts_total'),
      renderFailures: metricValue(text, 'pressroom_renders_total', { outcome: 'failure' }),
      appHeapTotalMb: metricValue(text, 'nodejs_heap_size_total_bytes') / MB,
      appHeapUsedMb: metricValue(text, 'nodejs_heap_size_used_bytes') / MB,
      appExternalMb: metricValue(text, 'nodejs_external_memory_bytes') / MB,
    };
  } catch (err) {
    scrapesMissed++;
    console.warn(`  /metrics could not be read: ${(err as Error).message}`);
  }
  return lastScrape;
}

/** Closed loop: `concurrency` callers for `seconds`; renders/s of the ones that succeeded. */
async function capacity(seconds: number, concurrency: number): Promise<number> {
  for (let i = 0; i < 5; i++) await renderOnce(); // warm-up
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) if ((await renderOnce().catch(() => 'failed')) === 'ok') done++;
    }),
  );
  return done / ((performance.now() - t0) / 1000);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

let capacityRps: number | null = null;
let rate: number;
let samples: SoakSample[] = [];
const failures: SoakFailure[] = [];
const codes = new Map<string, number>();
let ok = 0;
let fallbacks = 0;
let skipped = 0;
let sent = 0;
try {
  if (flags.rate) rate = positive(flags.rate, '--rate');
  else {
    capacityRps = await capacity(CAPACITY_S, CAPACITY_CONCURRENCY);
    if (!(capacityRps > 0)) throw new Error(`no render succeeded while measuring capacity:\n${svc.app.output.slice(-20).join('\n')}`);
    rate = capacityRps * LOAD;
    console.log(
      `capacity: ${capacityRps.toFixed(2)} renders/s (${CAPACITY_CONCURRENCY} callers, ${CAPACITY_S} s); soak rate ${rate.toFixed(2)} renders/s`,
    );
  }

  const t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  const takeSample = async (): Promise<SoakSample> => {
    const m = await scrape();
    return { t: Math.round(now()), ...usage(root), ok, failed: failures.length, fallbacks, ...m };
  };
  samples = [await takeSample()];
  console.log(`t = 0 s at ${new Date().toISOString()} (the service log's times against the samples' t)`);
  const header =
    't s | ok | failed | 202 | service RSS MB | app, host RSS MB | app heap total/used, external MB | Chromium RSS MB | service fds (sockets, snapshots) | Chromium fds | procs (svc/chr) | pages replaced | host restarts';
  console.log(header);
  const print = (s: SoakSample) =>
    console.log(
      `${s.t} | ${s.ok} | ${s.failed} | ${s.fallbacks} | ${s.serviceRssMb.toFixed(0)} | ${s.appRssMb.toFixed(0)}, ${s.hostRssMb.toFixed(0)} | ${s.appHeapTotalMb.toFixed(0)}/${s.appHeapUsedMb.toFixed(0)}, ${s.appExternalMb.toFixed(0)} | ${s.chromiumRssMb.toFixed(0)} | ${s.serviceFds} (${s.serviceSockets}, ${s.serviceSnapshotFds}) | ${s.chromiumFds} | ${s.serviceProcesses}/${s.chromiumProcesses} | ${s.pagesReplaced} | ${s.hostRestarts}`,
    );
  print(samples[0]!);

  const endAt = MINUTES * 60;
  let sampling = true;
  const sampler = (async () => {
    let next = SAMPLE_S;
    while (sampling) {
      await sleep((next - now()) * 1000);
      if (!sampling) break;
      const s = await takeSample();
      samples.push(s);
      print(s);
      next += SAMPLE_S;
    }
  })();

  const inFlight = new Set<Promise<void>>();
  const interval = 1 / rate;
  for (let k = 0; k * interval < endAt; k++) {
    await sleep((k * interval - now()) * 1000);
    if (inFlight.size >= MAX_IN_FLIGHT) {
      skipped++; // the service is this far behind: an arrival is dropped rather than piled up
      continue;
    }
    sent++;
    const start = now();
    const p = renderOnce().then(
      (r) => {
        if (r === 'ok') ok++;
        else fallbacks++;
      },
      (err: unknown) => {
        const code = err instanceof RenderError ? err.code : `BENCH (${(err as Error).message})`;
        failures.push({ start, end: now(), code });
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (failures.length <= 5) console.warn(`  a render failed at ${now().toFixed(0)} s: ${code}`);
      },
    );
    const tracked = p.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }
  await Promise.all(inFlight);
  sampling = false;
  await sampler;
  samples.push(await takeSample());
  print(samples.at(-1)!);
} finally {
  await svc.app.stop();
  if (flags['service-log']) writeFileSync(flags['service-log'], svc.app.output.join('\n') + '\n');
}

// ---- the report ------------------------------------------------------------------------------

const TABLE_HEADER =
  '| t s | ok | failed | 202 | service RSS MB | app, renderer host RSS MB | app V8 heap total/used, external MB | Chromium RSS MB | service fds (sockets, snapshots) | Chromium fds | processes (service/Chromium) | pages replaced | host restarts |';

const results = verdicts(samples, failures, SETTLE_S);
const suspects = recycleSuspects(failures, samples);
const last = samples.at(-1)!;
const elapsed = last.t;
const meta =
  `Embedded profile (own process, default settings${Object.keys(serviceEnv).length ? `, env ${flags.env.join(' ')}` : ''}, log level warn), ` +
  `sync renders of the invoice fixture (POST …/sync + GET signedUrl, checked %PDF-), ${started.toISOString()}, ${cpus().length} cores` +
  (flags.label ? `, ${flags.label}` : '') +
  `. ${capacityRps !== null ? `Capacity ${capacityRps.toFixed(2)} renders/s (${CAPACITY_CONCURRENCY} closed-loop callers, ${CAPACITY_S} s); ` : ''}` +
  `rate ${rate.toFixed(2)} renders/s${capacityRps !== null ? ` (${Math.round(LOAD * 100)} % of it)` : ' (--rate)'}, open loop, for ${MINUTES} min; ` +
  `samples every ${SAMPLE_S} s; RSS growth = median of the last 3 samples against the median of the first 3 from ${SETTLE_S} s on; fd growth = the fewest held in the last minute against the fewest in the first minute from ${SETTLE_S} s on (in brackets, of the service's: the sockets, the callers' connections among them, and the view snapshot files it reads from, judged by their bound rather than by growth).`;
const lines = [
  '# Soak',
  '',
  meta,
  '',
  `Sent ${sent} (${(sent / Math.max(1, elapsed)).toFixed(2)}/s), ok ${ok}, failed ${failures.length}, answered 202 ${fallbacks}, arrivals dropped (over ${MAX_IN_FLIGHT} in flight) ${skipped}. ` +
    `Service counters during the load: ${last.pagesReplaced - samples[0]!.pagesReplaced} pages replaced, ${last.hostRestarts - samples[0]!.hostRestarts} renderer host restarts, ` +
    `${last.renderFailures - samples[0]!.renderFailures} renders failed (pressroom_renders_total)` +
    (scrapesMissed ? `; /metrics did not answer ${scrapesMissed} times (those samples repeat the last counters)` : '') +
    '. "service" is every process under the app but Chromium: the app and the renderer host (Node; under Node 20 also the tsx launcher and its esbuild helpers).',
  '',
  '| target | verdict | figures |',
  '| --- | --- | --- |',
  ...results.map((v) => `| ${v.name} | ${v.pass ? 'pass' : '**FAIL**'} | ${v.detail} |`),
  '',
  ...(codes.size ? ['Failure codes: ' + [...codes].map(([c, n]) => `${c} × ${n}`).join(', '), ''] : []),
  ...(suspects.length
    ? [
        'Failures near a page replacement or host restart: ' +
          suspects.map((f) => `${f.code} at ${f.start.toFixed(0)}–${f.end.toFixed(0)} s`).join(', '),
        '',
      ]
    : []),
  TABLE_HEADER,
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...samples.map(
    (s) =>
      `| ${s.t} | ${s.ok} | ${s.failed} | ${s.fallbacks} | ${s.serviceRssMb.toFixed(0)} | ${s.appRssMb.toFixed(0)}, ${s.hostRssMb.toFixed(0)} | ${s.appHeapTotalMb.toFixed(0)}/${s.appHeapUsedMb.toFixed(0)}, ${s.appExternalMb.toFixed(0)} | ${s.chromiumRssMb.toFixed(0)} | ${s.serviceFds} (${s.serviceSockets}, ${s.serviceSnapshotFds}) | ${s.chromiumFds} | ${s.serviceProcesses}/${s.chromiumProcesses} | ${s.pagesReplaced} | ${s.hostRestarts} |`,
  ),
  '',
];
const md = lines.join('\n');
console.log('\n' + lines.slice(2, lines.indexOf(TABLE_HEADER)).join('\n'));
if (!flags['no-write']) {
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  writeFileSync(new URL(`${stamp}-soak.md`, dir), md);
  const json = {
    meta,
    capacityRps,
    rate,
    minutes: MINUTES,
    settleSeconds: SETTLE_S,
    env: serviceEnv,
    sent,
    ok,
    fallbacks,
    skipped,
    scrapesMissed,
    failures,
    failureCodes: Object.fromEntries(codes),
    growth: {
      serviceRss: growth(samples, (s) => s.serviceRssMb, SETTLE_S),
      appRss: growth(samples, (s) => s.appRssMb, SETTLE_S),
      rendererHostRss: growth(samples, (s) => s.hostRssMb, SETTLE_S),
      appHeapTotal: growth(samples, (s) => s.appHeapTotalMb, SETTLE_S),
      appExternal: growth(samples, (s) => s.appExternalMb, SETTLE_S),
      chromiumRss: growth(samples, (s) => s.chromiumRssMb, SETTLE_S),
      serviceFds: floorGrowth(samples, (s) => s.serviceFds, SETTLE_S),
      serviceSockets: floorGrowth(samples, (s) => s.serviceSockets, SETTLE_S),
      serviceSnapshotFds: floorGrowth(samples, (s) => s.serviceSnapshotFds, SETTLE_S),
      chromiumFds: floorGrowth(samples, (s) => s.chromiumFds, SETTLE_S),
    },
    verdicts: results,
    samples,
  };
  writeFileSync(new URL(`${stamp}-soak.json`, dir), JSON.stringify(json, null, 2) + '\n');
  console.log(`written: bench/results/${stamp}-soak.md (.json)`);
}
