// Where a distributed sync render's CPU goes, process by process (issue 13): the distributed apps
// on the shared Kafka, registry, Redis and S3 of the environment (`source /work/main/.infra/env`),
// one render worker; sequential callers send the invoice to `POST /v1/html-to-pdf/sync` and
// download its `signedUrl`; then the CPU every process of the machine used meanwhile (/proc), per
// render, by what it is (an app, its renderer host, Chromium, the broker, S3Proxy, Redis, ...).
// With --idle the apps get no request at all: the CPU each uses per second doing nothing.
//
//   npx tsx bench/process-cpu.bench.ts                  # 200 renders after 20 warm-up, concurrency 1
//   npx tsx bench/process-cpu.bench.ts --n 400 --concurrency 2
//   npx tsx bench/process-cpu.bench.ts --idle --seconds 30
//   npx tsx bench/process-cpu.bench.ts --env NAME=value # a setting of the apps (repeatable)
import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { AppProcess, freePort, type AppName } from '../test/support/service-process.ts';
import { distributedBenchEnv, removeRunBucket } from './distributed-env.ts';
import { procStat } from './chromium-ticks.ts';
import { envFlags } from './env-flags.ts';
import { positiveInt } from './positive-int.ts';

const { values: flags } = parseArgs({
  options: {
    n: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '1' },
    idle: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '30' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const N = positiveInt(flags.n, '--n');
const WARMUP = Number(flags.warmup);
const CONCURRENCY = positiveInt(flags.concurrency, '--concurrency');
const CLK_TCK = 100; // USER_HZ on Linux

const invoiceHtml = readFileSync(new URL('../test/fixtures/invoice/invoice.html', import.meta.url), 'utf8');

/** What a process is, from its command line (the apps by their entry point). */
function kindOf(cmdline: string, comm: string): string {
  const app = /apps\/([a-z-]+)\/src\/main\.ts/.exec(cmdline)?.[1];
  if (app) return app;
  if (/renderer-host|host\/main/.test(cmdline)) return 'renderer host';
  if (/chrom|headless/i.test(comm)) return 'chromium';
  if (/kafka\.Kafka|kafka/i.test(cmdline)) return 'kafka';
  if (/s3proxy/i.test(cmdline)) return 's3proxy';
  if (/apicurio|quarkus/i.test(cmdline)) return 'schema registry';
  if (/redis/.test(comm)) return 'redis';
  if (cmdline.includes('process-cpu.bench')) return 'this bench (the callers)';
  return `other: ${comm}`;
}

/** A process's command line, its arguments joined by spaces; undefined when it is gone. */
function commandLine(pid: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
}

/** CPU ticks (user + system, with reaped children) of every process, by pid, with its kind. */
function snapshot(): Map<number, { kind: string; ticks: number }> {
  const out = new Map<number, { kind: string; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (!stat) continue;
    const cmdline = commandLine(name);
    if (cmdline !== undefined) out.set(Number(name), { kind: kindOf(cmdline, stat.comm), ticks: stat.ticks });
  }
  return out;
}

/** CPU ms by kind between two snapshots: sums subtracted (a process reaped meanwhile reappears in its parent's cutime). */
function cpuByKind(before: ReturnType<typeof snapshot>, after: ReturnType<typeof snapshot>): Map<string, number> {
  const byKind = new Map<string, number>();
  const add = (snap: ReturnType<typeof snapshot>, sign: number) => {
    for (const { kind, ticks } of snap.values()) byKind.set(kind, (byKind.get(kind) ?? 0) + (sign * ticks * 1000) / CLK_TCK);
  };
  add(after, 1);
  add(before, -1);
  return byKind;
}

const run = `cpu-${randomBytes(4).toString('hex')}`;
const ingressPort = await freePort();
const apiKey = `prk_test_${randomBytes(16).toString('hex')}`;
const env = distributedBenchEnv({ run, ingressPort, apiKey, partitions: 2, extra: envFlags(flags.env) });
const apps: AppProcess[] = [];
const start = async (name: AppName, port?: number) => {
  const app = new AppProcess(name, env, port ?? (await freePort()));
  apps.push(app);
  await app.start();
};

async function renderOnce(): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${ingressPort}/v1/html-to-pdf/sync`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ html: invoiceHtml }),
  });
  const body = (await res.json()) as { signedUrl?: string };
  if (res.status !== 200 || !body.signedUrl) throw new Error(`the sync render answered ${res.status}: ${JSON.stringify(body)}`);
  const file = await fetch(body.signedUrl);
  if (file.status !== 200) throw new Error(`the signed URL answered ${file.status}`);
  await file.arrayBuffer();
}

async function renders(n: number): Promise<void> {
  let left = n;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await renderOnce();
    }),
  );
}

try {
  await start('ingress', ingressPort);
  await Promise.all([start('status-projector'), start('webhook-dispatcher')]);
  await start('render-worker');
  let per: number;
  let unit: string;
  let before: ReturnType<typeof snapshot>;
  if (flags.idle) {
    const seconds = positiveInt(flags.seconds, '--seconds');
    await new Promise((r) => setTimeout(r, 10_000)); // past the start's own work
    before = snapshot();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    per = seconds;
    unit = 'ms of CPU per second, idle';
    console.log(`the distributed apps idle for ${seconds} s`);
  } else {
    await renders(WARMUP);
    before = snapshot();
    const started = performance.now();
    await renders(N);
    const took = (performance.now() - started) / 1000;
    per = N;
    unit = 'ms of CPU per render';
    console.log(`${N} sync renders at concurrency ${CONCURRENCY} in ${took.toFixed(1)} s: ${(N / took).toFixed(2)} renders/s`);
  }
  const byKind = cpuByKind(before, snapshot());
  let total = 0;
  for (const [kind, ms] of [...byKind].sort((a, b) => b[1] - a[1])) {
    total += ms;
    if (ms / per >= 0.3) console.log(`${(ms / per).toFixed(1).padStart(8)}  ${kind}`);
  }
  console.log(`${(total / per).toFixed(1).padStart(8)}  the whole machine (${unit})`);
} finally {
  await Promise.all(apps.map((a) => a.stop()));
  await removeRunBucket(env);
}
