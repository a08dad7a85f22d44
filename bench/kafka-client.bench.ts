// Append and consume throughput of the event log on each Kafka client of its data path
// (PRESSROOM_KAFKA_CLIENT: kafkajs, platformatic), through the EventLog port as the apps use it.
// Each run writes to topics of its own (prefix bench-kclient-<run>, deleted at the end) and
// uses the registry codec when SCHEMA_REGISTRY_URL is set (subjects under its own prefix).
//
//   source /work/main/.infra/env && npx tsx bench/kafka-client.bench.ts --events 20000
//
// Measured per client, in rounds taking turns (a shared machine's load changes by the minute):
//   append, sequential: one event per append, awaited (what an ingress request costs)
//   append, concurrent: `--concurrency` appends in flight (what a busy ingress does)
//   readAll: every event read back without a group (rebuilds, audit)
//   consume: a fresh group reads every event from the beginning, concurrency 16 (projectors)
//   CPU: this process's CPU time over the four phases, per 1,000 events
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import kafkajs from 'kafkajs';
import type { EventLog } from '@pressroom/core';
import { createKafkaEventLog, type KafkaClientName } from '@pressroom/kafka';
import type { RenderRequested } from '@pressroom/schemas';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    sequential: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '2' },
  },
});
const events = Number(flags.events);
const sequential = Number(flags.sequential);
const concurrency = Number(flags.concurrency);
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const registry = process.env.SCHEMA_REGISTRY_URL;
const run = `bench-kclient-${randomBytes(3).toString('hex')}`;

const event = (i: number): RenderRequested => ({
  eventId: randomUUID(),
  type: 'RenderRequested',
  version: 1,
  occurredAt: new Date(Date.UTC(2030, 0, 1) + i).toISOString(),
  requestId: randomUUID(),
  tenantId: 'tenant-bench',
  data: { mode: 'async', source: { kind: 'html', html: `<p>render ${i}</p>` }, output: 'pdf', storage: { kind: 'default' } },
});

const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000)}/s`;

async function round(client: KafkaClientName, r: number): Promise<Record<string, string>> {
  const topic = `${run}.${client}.${r}`;
  const log: EventLog = await createKafkaEventLog({
    brokers,
    clientId: `${run}-${client}`,
    partitions: 6,
    sessionTimeoutMs: 6_000,
    heartbeatIntervalMs: 500,
    client,
    topics: [topic],
    ...(registry ? { schemaRegistryUrl: registry, subjectPrefix: `${run}.` } : {}),
  });
  const cpu = process.cpuUsage();
  try {
    let t = performance.now();
    for (let i = 0; i < sequential; i++) await log.append(topic, [event(i)]);
    const seq = rate(sequential, performance.now() - t);

    t = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < events) await log.append(topic, [event(next++)]);
      }),
    );
    const conc = rate(events, performance.now() - t);
    const total = sequential + events;

    t = performance.now();
    const read = await log.readAll([topic], () => {});
    const readAll = rate(read, performance.now() - t);
    if (read !== total) throw new Error(`${client}: readAll read ${read} of ${total}`);

    t = performance.now();
    let seen = 0;
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const sub = await log.consume({
      group: `${run}.${client}.${r}.group`,
      topics: [topic],
      concurrency: 16,
      handle: async () => {
        if (++seen === total) done();
      },
    });
    await all;
    const consume = rate(total, performance.now() - t);
    await sub.stop();
    const used = process.cpuUsage(cpu);
    // CPU of this process per 1,000 events through all four phases (less sensitive to the machine's load than rates).
    const cpuPer1k = (((used.user + used.system) / 1000 / total) * 1000).toFixed(0);
    return {
      client,
      round: String(r),
      'append sequential': seq,
      [`append x${concurrency}`]: conc,
      readAll,
      'consume (join included)': consume,
      'CPU ms per 1k events': cpuPer1k,
    };
  } finally {
    await log.close();
  }
}

const rows: Record<string, string>[] = [];
for (let r = 1; r <= Number(flags.rounds); r++) {
  for (const client of ['kafkajs', 'platformatic'] as const) {
    const row = await round(client, r);
    console.log(JSON.stringify(row));
    rows.push(row);
  }
}
console.table(rows);

// This run's topics and groups go again.
const admin = new kafkajs.Kafka({ brokers, clientId: `${run}-cleanup`, logLevel: kafkajs.logLevel.NOTHING }).admin();
await admin.connect();
const topics = (await admin.listTopics()).filter((t) => t.startsWith(run));
if (topics.length) await admin.deleteTopics({ topics });
const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.includes(run));
if (groups.length) await admin.deleteGroups(groups).catch(() => {});
await admin.disconnect();
