// How long the embedded profile takes from process start to listening, with a long history, with
// and without view snapshots. The history is written straight to the log (no rendering).
//
//   npx tsx bench/startup.bench.ts                 # 100,000 past renders (300,000 records)
//   npx tsx bench/startup.bench.ts --renders 1000000
//   npx tsx bench/startup.bench.ts --service       # also time real starts of the service (as npm start runs it)
//   npx tsx bench/startup.bench.ts --service --tsx # the same through tsx's loader (the launch before issue 12's last step)
//   npx tsx bench/startup.bench.ts --renders 1000000 --service --snapshot-only
//                                                  # only the start with a snapshot (the others replay everything)
//   npx tsx bench/startup.bench.ts --renders 1000000 --data-dir /tmp/startup-1m --service --snapshot-only
//                                                  # keeps the data dir, and reuses it when it has a log already
//                                                  # (writing 1,000,000 renders takes minutes; the views' snapshots are kept too)
//
// With --service, each start also sends one async render with an Idempotency-Key right after
// /healthz answers (the same key every start: the first start of a data dir takes it, every later
// one must answer that request's id) and times its answer from process start: the keys are
// restored from the log in the background after listening, and a keyed request waits for that.
//
// First, in this process, the part of a start that grows with history (log open + view restore),
// without then with a snapshot. With --service, three starts of `apps/standalone/src/main.ts` against the same data dir, each timed until
// GET /healthz answers (the ingress listens after the views are restored):
//   1. no snapshot: the whole log is replayed (then a snapshot is written at once, in the background)
//   2. with the snapshot written by 1 and stopped cleanly: replays only the tail
//   3. the snapshot deleted: the whole log again (deleting the snapshot is always safe)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createFileEventLog, silentLogger, topicNames } from '@pressroom/core';
import { loadConfig, openParts } from '@pressroom/runtime';
import { writePastRenders } from '@pressroom/testing';

const { values: flags } = parseArgs({
  options: {
    renders: { type: 'string', default: '100000' },
    port: { type: 'string', default: '38431' },
    service: { type: 'boolean', default: false },
    'snapshot-only': { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    // Start the service through tsx's loader instead of `npm start`'s launcher (scripts/run-ts.mjs,
    // which uses Node's own type stripping where it has it): what a start cost before.
    tsx: { type: 'boolean', default: false },
  },
});
const renders = Number(flags.renders);
const port = Number(flags.port);
const keep = flags['data-dir'] !== undefined;
const dataDir = flags['data-dir'] ?? (await mkdtemp(join(tmpdir(), 'pressroom-startup-bench-')));
const cleanUp = () => (keep ? Promise.resolve() : rm(dataDir, { recursive: true, force: true }));

if (existsSync(join(dataDir, 'log'))) {
  console.log(`history: reusing ${dataDir} (--renders ignored)`);
} else {
  const t = performance.now();
  const log = await createFileEventLog({ dir: join(dataDir, 'log') });
  await writePastRenders(log, topicNames(), renders);
  await log.close();
  console.log(`history: ${renders} renders (${renders * 3} records) written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

// Set at every start (a repeated start registers nothing new), so the bench can call the API.
const API_KEY = 'prs_live_startupbench0000000000000000000000';
const IDEMPOTENCY_KEY = 'startup-bench';
/** The requestId the bench's Idempotency-Key answered at the first start of this run (each later one must match). */
let keyedRequestId: string | undefined;

/** Sends the keyed async render; resolves with its requestId once answered. */
async function keyedRender(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/html-to-pdf/async`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json', 'Idempotency-Key': IDEMPOTENCY_KEY },
    body: JSON.stringify({ html: '<p>startup bench</p>', webhook: 'http://127.0.0.1:9/startup-bench' }),
  });
  const body = (await res.json()) as { requestId?: string };
  if (res.status !== 200 || !body.requestId) throw new Error(`keyed render answered ${res.status}: ${JSON.stringify(body)}`);
  return body.requestId;
}

async function startOnce(label: string): Promise<void> {
  const started = performance.now();
  // node itself (not npx): SIGTERM must reach the service, not a wrapper that leaves it running.
  const launch = flags.tsx ? ['--import', 'tsx'] : ['scripts/run-ts.mjs'];
  const child = spawn(process.execPath, [...launch, 'apps/standalone/src/main.ts'], {
    env: {
      ...process.env,
      PRESSROOM_PROFILE: 'embedded',
      PRESSROOM_DATA_DIR: dataDir,
      PORT: String(port),
      PRESSROOM_LOG_LEVEL: 'warn',
      PRESSROOM_API_KEY: API_KEY,
      PRESSROOM_ALLOW_PRIVATE_WEBHOOKS: 'true',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    if (performance.now() - started > 600_000) throw new Error('not listening after 10 min');
    await new Promise((r) => setTimeout(r, 50));
  }
  const ms = performance.now() - started;
  const requestId = await keyedRender();
  const keyedMs = performance.now() - started;
  const same = keyedRequestId === undefined ? 'first of this run' : requestId === keyedRequestId ? 'same requestId' : 'ANOTHER requestId';
  keyedRequestId ??= requestId;
  console.log(
    `${label}: listening after ${(ms / 1000).toFixed(2)} s, Idempotency-Key answered after ${(keyedMs / 1000).toFixed(2)} s (${requestId}: ${same})`,
  );
  // Let the background snapshot of a long replay finish, then stop cleanly (SIGTERM: shutdown snapshot).
  await new Promise((r) => setTimeout(r, 3000));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

/**
 * The part of a start that depends on history, in this process: open the log (index every topic
 * file), restore every snapshotted view (snapshot + tail, or the whole log): the status and template
 * views, as standalone does before it listens, and the Idempotency-Keys and webhook deliveries, which
 * it restores after; then a clean shutdown (which writes the snapshots).
 */
async function restoreOnce(label: string): Promise<void> {
  const config = loadConfig({ PRESSROOM_PROFILE: 'embedded', PRESSROOM_DATA_DIR: dataDir });
  const started = performance.now();
  const rt = await openParts(config, 'bench', ['log', 'view', 'templates'], { logger: silentLogger });
  const opened = performance.now();
  const results = [];
  for (const s of rt.snapshots?.snapshotters ?? []) results.push({ view: s.name, ...(await s.restore()) });
  const done = performance.now();
  const replayed = results.reduce((n, r) => n + r.replayed, 0);
  console.log(
    `${label}: log opened in ${((opened - started) / 1000).toFixed(2)} s, views restored in ${((done - opened) / 1000).toFixed(2)} s ` +
      `(${replayed} records replayed, snapshot: ${results.every((r) => r.fromSnapshot)})`,
  );
  await rt.snapshots?.close();
  await rt.close();
}

// A reused data dir with a snapshot, --snapshot-only: the whole-log replay is not timed again.
if (!(flags['snapshot-only'] && existsSync(join(dataDir, 'snapshots')))) await restoreOnce('in process, no snapshot');
await restoreOnce('in process, with snapshot');
if (!flags.service) {
  await cleanUp();
  process.exit(0);
}
if (!flags['snapshot-only']) await rm(join(dataDir, 'snapshots'), { recursive: true, force: true });

// A port someone else listens on would make every start look instant.
if (
  await fetch(`http://127.0.0.1:${port}/healthz`).then(
    () => true,
    () => false,
  )
)
  throw new Error(`port ${port} is taken`);
try {
  if (flags['snapshot-only']) {
    await startOnce('with snapshot');
    await startOnce('with snapshot, again');
  } else {
    await startOnce('no snapshot (whole log replayed)');
    await startOnce('with snapshot');
    await rm(join(dataDir, 'snapshots'), { recursive: true, force: true });
    await startOnce('snapshot deleted (whole log replayed)');
  }
} finally {
  await cleanUp();
}
