// The pure part of the soak (bench/soak.ts): reading the service's metrics text, and turning the
// samples into growth figures and verdicts. Unit-tested in soak-report.unit.spec.ts.

/** One sample of the soak, every --sample seconds. */
export interface SoakSample {
  /** Seconds since the load started. */
  t: number;
  /** RSS in MB, summed: the service's Node processes (app, renderer host) and Chromium's. */
  serviceRssMb: number;
  chromiumRssMb: number;
  /** The service's RSS by process (MB): the app's own and the renderer host's (the rest is launchers). */
  appRssMb: number;
  hostRssMb: number;
  /** From the app's /metrics (prom-client's defaults), MB: V8's heap as reserved and as used, and memory
   *  held outside it by JS objects (Buffers, ArrayBuffers): which of them grows says where RSS goes. */
  appHeapTotalMb: number;
  appHeapUsedMb: number;
  appExternalMb: number;
  /** Open file descriptors (/proc/<pid>/fd), summed over the same processes. */
  serviceFds: number;
  chromiumFds: number;
  /**
   * Of the service's, the view snapshot files it reads from (`*.snapshot`, see
   * libs/core/src/view-snapshots.ts): each indexed view keeps its base and delta open by design,
   * opened at the first saves (every PRESSROOM_SNAPSHOT_INTERVAL_MS) and swapped at later ones.
   */
  serviceSnapshotFds: number;
  /** Of the service's, the sockets (the callers' connections, in flight or kept alive, among them). */
  serviceSockets: number;
  /** How many processes each group had. */
  serviceProcesses: number;
  chromiumProcesses: number;
  /** Renders the soak saw finish so far: ok, failed (by code), answered 202 (sync fallback). */
  ok: number;
  failed: number;
  fallbacks: number;
  /** From the service's /metrics: pages replaced, renderer host restarts (Chromium with it), renders by outcome. */
  pagesReplaced: number;
  hostRestarts: number;
  renderFailures: number;
}

/** The value of a metric (summed over label sets matching `labels`) in Prometheus text format; 0 when absent. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue; // another metric with this prefix
    const labelText = rest[0] === '{' ? rest.slice(1, rest.indexOf('}')) : '';
    const have = Object.fromEntries([...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (!Object.entries(labels).every(([k, v]) => have[k] === v)) continue;
    const value = Number(rest.slice(rest.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Growth {
  /** Median of the first `window` steady samples, and of the last `window` samples. */
  first: number;
  last: number;
  /** last − first, and as a percentage of first. */
  delta: number;
  percent: number;
  /** The largest value seen in the steady samples. */
  peak: number;
}

/**
 * Growth of one figure over the steady part of the run: the median of the last `window` samples
 * against the median of the first `window` samples at or after `steadyFrom` seconds (medians, so
 * one sample taken while a renderer process was being replaced moves neither end).
 */
export function growth(samples: SoakSample[], pick: (s: SoakSample) => number, steadyFrom: number, window = 3): Growth {
  const steady = samples.filter((s) => s.t >= steadyFrom);
  const use = steady.length ? steady : samples;
  const w = Math.max(1, Math.min(window, Math.floor(use.length / 2) || 1));
  const first = median(use.slice(0, w).map(pick));
  const last = median(use.slice(-w).map(pick));
  const delta = last - first;
  return { first, last, delta, percent: first > 0 ? (delta / first) * 100 : 0, peak: Math.max(...use.map(pick)) };
}

/**
 * What a figure holds at least, early and late in the steady part: the fewest in the first
 * `windowS` seconds at or after `steadyFrom` against the fewest in the last `windowS` seconds.
 * For file descriptors: a leak raises the floor, while the load of the moment (connections in
 * flight or kept alive, a file being written) only lifts single samples above it.
 */
export function floorGrowth(samples: SoakSample[], pick: (s: SoakSample) => number, steadyFrom: number, windowS = 60): Growth {
  const steady = samples.filter((s) => s.t >= steadyFrom);
  const use = steady.length ? steady : samples;
  const start = use[0]?.t ?? 0;
  const end = use.at(-1)?.t ?? 0;
  // Windows no longer than half the run, so that they never overlap.
  const span = Math.min(windowS, (end - start) / 2);
  const early = use.filter((s) => s.t < start + span);
  const late = use.filter((s) => s.t > end - span);
  const first = Math.min(...(early.length ? early : use.slice(0, 1)).map(pick));
  const last = Math.min(...(late.length ? late : use.slice(-1)).map(pick));
  const delta = last - first;
  return { first, last, delta, percent: first > 0 ? (delta / first) * 100 : 0, peak: Math.max(...use.map(pick)) };
}

/** A failed render of the soak: when it started and ended (seconds since the load started) and its code. */
export interface SoakFailure {
  start: number;
  end: number;
  code: string;
}

/**
 * Failures that a page replacement or a renderer host restart may have caused: those that ended in
 * a sample interval in which either counter moved (or in the one just after, as the counters are
 * read at sample time), and every RENDER_CRASHED (the host, with its Chromium, ended under it).
 */
export function recycleSuspects(failures: SoakFailure[], samples: SoakSample[]): SoakFailure[] {
  const moved: [number, number][] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if (b.pagesReplaced > a.pagesReplaced || b.hostRestarts > a.hostRestarts) moved.push([a.t, samples[i + 1]?.t ?? Infinity]);
  }
  return failures.filter((f) => f.code === 'RENDER_CRASHED' || moved.some(([from, to]) => f.end >= from && f.start <= to));
}

export interface SoakVerdict {
  name: string;
  pass: boolean;
  detail: string;
}

/**
 * The embedded profile's indexed views (view-snapshots.ts: the status view and the webhook
 * deliveries), each reading from at most its base and its delta snapshot between saves.
 */
export const INDEXED_VIEWS = 2;
/** The snapshot files the service may hold in steady state: a base and a delta per indexed view. */
export const SNAPSHOT_FDS_BOUND = 2 * INDEXED_VIEWS;

/**
 * Issue 13's soak targets: RSS growth < 10 %, no fd growth, no failed render caused by a page or
 * browser recycle. The service's attached snapshot files are judged apart from its other fds:
 * a 5-minute snapshot interval opens them one by one during the first saves, which lifts the floor
 * of a 20-minute run once or twice without any leak; what must hold for them is their bound.
 */
export function verdicts(samples: SoakSample[], failures: SoakFailure[], steadyFrom: number): SoakVerdict[] {
  const pct = (g: Growth) => `${g.percent >= 0 ? '+' : ''}${g.percent.toFixed(1)} %`;
  const mb = (v: number) => `${v.toFixed(0)} MB`;
  const rss = [
    ['service Node RSS', growth(samples, (s) => s.serviceRssMb, steadyFrom)],
    ['Chromium RSS', growth(samples, (s) => s.chromiumRssMb, steadyFrom)],
    ['total RSS', growth(samples, (s) => s.serviceRssMb + s.chromiumRssMb, steadyFrom)],
  ] as const;
  const fds = [
    ['service Node fds (but its attached snapshot files)', floorGrowth(samples, (s) => s.serviceFds - s.serviceSnapshotFds, steadyFrom)],
    ['Chromium fds', floorGrowth(samples, (s) => s.chromiumFds, steadyFrom)],
  ] as const;
  const snapshots = floorGrowth(samples, (s) => s.serviceSnapshotFds, steadyFrom);
  const suspects = recycleSuspects(failures, samples);
  const last = samples.at(-1);
  const first = samples[0];
  const replaced = last && first ? last.pagesReplaced - first.pagesReplaced : 0;
  const restarts = last && first ? last.hostRestarts - first.hostRestarts : 0;
  return [
    ...rss.map(([name, g]) => ({
      name: `${name} growth < 10 %`,
      pass: g.percent < 10,
      detail: `${mb(g.first)} → ${mb(g.last)} (${pct(g)}), peak ${mb(g.peak)}`,
    })),
    ...fds.map(([name, g]) => ({
      // "No growth": the last minute never held fewer descriptors than the first steady one did at its fewest.
      name: `${name}: no growth`,
      pass: g.delta <= 0,
      detail: `fewest held ${g.first} → ${g.last} (${g.delta >= 0 ? '+' : ''}${g.delta}), peak ${g.peak}`,
    })),
    {
      // Bounded, not flat: the fewest held in the last minute at most a base and a delta per indexed view.
      name: `service's attached snapshot files ≤ ${SNAPSHOT_FDS_BOUND} (a base and a delta per indexed view)`,
      pass: snapshots.last <= SNAPSHOT_FDS_BOUND,
      detail: `fewest held ${snapshots.first} → ${snapshots.last}, peak ${snapshots.peak} (a save holds the files it replaces until their reads end)`,
    },
    {
      name: 'no failed render caused by a page or browser recycle',
      pass: suspects.length === 0,
      detail:
        `${failures.length} failed, ${suspects.length} near a page replacement or host restart` +
        `; ${replaced} pages replaced, ${restarts} renderer host restarts during the run` +
        (replaced === 0 && restarts === 0 ? ' (no recycle happened: nothing proven; lower PRESSROOM_RENDER_RECYCLE_AFTER)' : ''),
    },
  ];
}
