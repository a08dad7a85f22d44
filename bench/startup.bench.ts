// How long the embedded profile takes from process start to listening, with a long history, with
// and without view snapshots. The history is written straight to the log (no rendering).
//
//   npx tsx bench/startup.bench.ts                 # 100,000 past renders (300,000 records)
//   npx tsx bench/startup.bench.ts --renders 1000000
//
// Three starts of `apps/standalone/src/main.ts` against the same data dir, each timed until
// GET /healthz answers (the ingress listens after the views are restored):
//   1. no snapshot: the whole log is replayed (then a snapshot is written at once, in the background)
//   2. with the snapshot written by 1 and stopped cleanly: replays only the tail
//   3. the snapshot deleted: the whole log again (deleting the snapshot is always safe)
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createFileEventLog, topicNames } from '@pressroom/core';
import { writePastRenders } from '@pressroom/testing';

const { values: flags } = parseArgs({ options: { renders: { type: 'string', default: '100000' }, port: { type: 'string', default: '38431' } } });
const renders = Number(flags.renders);
const port = Number(flags.port);
const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-startup-bench-'));

let t = performance.now();
const log = await createFileEventLog({ dir: join(dataDir, 'log') });
await writePastRenders(log, topicNames(), renders);
await log.close();
console.log(`history: ${renders} renders (${renders * 3} records) written in ${((performance.now() - t) / 1000).toFixed(1)} s`);

async function startOnce(label: string): Promise<void> {
  const started = performance.now();
  const child = spawn('npx', ['tsx', 'apps/standalone/src/main.ts'], {
    env: { ...process.env, PRESSROOM_PROFILE: 'embedded', PRESSROOM_DATA_DIR: dataDir, PORT: String(port), PRESSROOM_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ms = performance.now() - started;
  console.log(`${label}: listening after ${(ms / 1000).toFixed(2)} s`);
  // Let the background snapshot of a long replay finish, then stop cleanly (SIGTERM: shutdown snapshot).
  await new Promise((r) => setTimeout(r, 3000));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

try {
  await startOnce('no snapshot (whole log replayed)');
  await startOnce('with snapshot');
  await rm(join(dataDir, 'snapshots'), { recursive: true, force: true });
  await startOnce('snapshot deleted (whole log replayed)');
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
