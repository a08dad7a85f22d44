// How long `ops status rebuild` takes in the distributed profile (Kafka log, Redis status view)
// with a given number of past events, written straight to Kafka under a fresh topic and Redis
// prefix (so nothing shared is touched), then the CLI run as an operator runs it, timed end to end.
//
//   source /work/main/.infra/env && npx tsx bench/rebuild.bench.ts --events 100000
//
// `--run <id>` reuses the history an earlier run wrote (its id is printed), to time the rebuild
// again without writing the events again; `--write-only` writes a history and stops (its Redis
// prefix holds nothing yet).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { silentLogger } from '@pressroom/core';
import { loadConfig, openParts } from '@pressroom/runtime';
import { writePastRenders } from '@pressroom/testing';

const { values: flags } = parseArgs({
  options: { events: { type: 'string', default: '100000' }, run: { type: 'string' }, 'write-only': { type: 'boolean' } },
});
const renders = Math.ceil(Number(flags.events) / 3); // three records per past render
const run = flags.run ?? randomBytes(4).toString('hex');
const env = {
  ...process.env,
  PRESSROOM_PROFILE: 'distributed',
  PRESSROOM_TOPIC_PREFIX: `bench-rebuild-${run}`,
  PRESSROOM_REDIS_PREFIX: `bench-rebuild-${run}:`,
  PRESSROOM_LOG_LEVEL: 'warn',
  PRESSROOM_SECRET_KEY: process.env.PRESSROOM_SECRET_KEY ?? randomBytes(32).toString('hex'),
};

if (flags.run === undefined) {
  const t = performance.now();
  const rt = await openParts(loadConfig(env), 'bench', ['log'], { logger: silentLogger });
  await writePastRenders(rt.log, rt.topics, renders);
  await rt.close();
  console.log(
    `history (run ${run}): ${renders} renders (${renders * 3} events) written to Kafka in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  if (flags['write-only']) process.exit(0);
}

const started = performance.now();
// The CLI's own CPU time too (GNU time, when installed): on a shared, loaded machine the wall
// time says more about the neighbours than about the rebuild.
const gnuTime = existsSync('/usr/bin/time');
const command = [process.execPath, '--import', 'tsx', 'apps/ops/src/main.ts', 'status', 'rebuild', '--json'];
const code = await new Promise<number | null>((resolve) => {
  const child = gnuTime
    ? spawn('/usr/bin/time', ['-f', 'cpu: %U s user, %S s system', ...command], { env, stdio: ['ignore', 'inherit', 'inherit'] })
    : spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.once('exit', resolve);
});
console.log(
  `ops status rebuild: exit ${code}, ${((performance.now() - started) / 1000).toFixed(1)} s for ${renders * 3} events (load average ${loadavg()[0]!.toFixed(1)})`,
);

// The bench's Redis keys go again (its Kafka topics stay: small, and named by the run).
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
for await (const keys of redis.scanStream({ match: `${env.PRESSROOM_REDIS_PREFIX}*`, count: 1000 }) as AsyncIterable<string[]>) {
  if (keys.length) await redis.unlink(...keys);
}
await redis.quit();
