// Where a sync render's time goes (issue 13): sequential sync renders of the invoice, each split
// by its own history (`GET /v1/pdf/{id}/events`: the service's clock, the same machine as ours)
// into the caller's send → the request's record (RenderRequested) → its attempt
// (RenderAttemptStarted) → its outcome (RenderSucceeded) → the answer → the signedUrl's download.
//
//   npx tsx bench/stages.bench.ts                    # embedded profile, PDF, 50 renders after 10 warm-up
//   npx tsx bench/stages.bench.ts --png              # convertToImage
//   npx tsx bench/stages.bench.ts --distributed      # the distributed profile, one render worker
//                                                    # (source /work/main/.infra/env first)
//   npx tsx bench/stages.bench.ts --env NAME=value   # a setting of the service under test
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { positiveInt } from './positive-int.ts';
import { quantile } from './quantile.ts';
import { distributedBenchEnv, removeRunBucket } from './distributed-env.ts';
import { envFlags } from './env-flags.ts';
import { startEmbedded } from '../test/support/embedded-service.ts';
import { AppProcess, freePort, type AppName } from '../test/support/service-process.ts';

const { values: flags } = parseArgs({
  options: {
    n: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '10' },
    png: { type: 'boolean', default: false },
    distributed: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const N = positiveInt(flags.n, '--n');
const WARMUP = Number(flags.warmup);
const serviceEnv = envFlags(flags.env);
const html = readFileSync(new URL('../test/fixtures/invoice/invoice.html', import.meta.url), 'utf8');
const body = JSON.stringify(flags.png ? { html, convertToImage: true } : { html });

interface Service {
  baseUrl: string;
  apiKey: string;
  stop(): Promise<unknown>;
}

async function embedded(): Promise<Service> {
  const svc = await startEmbedded({ PRESSROOM_LOG_LEVEL: 'warn', ...serviceEnv });
  return { baseUrl: svc.baseUrl, apiKey: svc.apiKey, stop: () => svc.app.stop() };
}

async function distributed(): Promise<Service> {
  const run = `stages-${randomBytes(4).toString('hex')}`;
  const ingressPort = await freePort();
  const apiKey = `prk_test_${randomBytes(16).toString('hex')}`;
  const env = distributedBenchEnv({ run, ingressPort, apiKey, partitions: 2, extra: serviceEnv });
  const apps: AppProcess[] = [];
  const start = async (name: AppName, port?: number) => {
    const app = new AppProcess(name, env, port ?? (await freePort()));
    apps.push(app);
    await app.start();
  };
  const stop = () => Promise.all(apps.map((a) => a.stop())).then(() => removeRunBucket(env));
  try {
    await start('ingress', ingressPort);
    await Promise.all([start('status-projector'), start('webhook-dispatcher'), start('render-worker')]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl: `http://127.0.0.1:${ingressPort}`, apiKey, stop };
}

const STAGES = ['send → request recorded', 'recorded → attempt', 'attempt → outcome', 'outcome → answer', 'download', 'total'] as const;

/** One sync render, and the milliseconds of each stage. */
async function renderOnce(svc: Service): Promise<number[]> {
  const auth = { authorization: `Bearer ${svc.apiKey}` };
  const sent = Date.now();
  const res = await fetch(`${svc.baseUrl}/v1/html-to-pdf/sync`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body,
  });
  const json = (await res.json()) as { signedUrl?: string };
  const answered = Date.now();
  if (res.status !== 200 || !json.signedUrl) throw new Error(`sync answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
  await (await fetch(json.signedUrl)).arrayBuffer();
  const downloaded = Date.now();
  const history = (await (await fetch(`${svc.baseUrl}/v1/pdf/${res.headers.get('x-request-id')}/events`, { headers: auth })).json()) as {
    events: { type: string; occurredAt: string }[];
  };
  const at = (type: string) => {
    const event = history.events.find((e) => e.type === type);
    if (!event) throw new Error(`no ${type} in the render's history`);
    return Date.parse(event.occurredAt);
  };
  const [requested, attempt, outcome] = [at('RenderRequested'), at('RenderAttemptStarted'), at('RenderSucceeded')];
  return [requested - sent, attempt - requested, outcome - attempt, answered - outcome, downloaded - answered, downloaded - sent];
}

const svc = flags.distributed ? await distributed() : await embedded();
const samples: number[][] = [];
try {
  for (let i = 0; i < WARMUP + N; i++) {
    const ms = await renderOnce(svc);
    if (i >= WARMUP) samples.push(ms);
  }
} finally {
  await svc.stop();
}
console.log(
  `${flags.distributed ? 'distributed' : 'embedded'} sync ${flags.png ? 'PNG' : 'PDF'}, ${N} renders after ${WARMUP} warm-up (ms)`,
);
STAGES.forEach((stage, k) => {
  const values = samples.map((s) => s[k] as number).sort((a, b) => a - b);
  console.log(`${stage.padEnd(24)} p50 ${String(quantile(values, 0.5)).padStart(4)}  p95 ${String(quantile(values, 0.95)).padStart(4)}`);
});
