import { randomUUID } from 'node:crypto';
import kafkajs from 'kafkajs';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import type { EventLog, Logger, Subscription } from '@pressroom/core';
import type { PressroomEvent, RenderRequested, WebhookDelivered } from '@pressroom/schemas';
import { eventLogContract, sequencedEvent, waitFor } from '@pressroom/testing';
import { createKafkaEventLog, type KafkaEventLogOptions } from './kafka-event-log.ts';
import { createRegistryCodec } from './registry-codec.ts';
import { Redis } from 'ioredis';
import { createRedisStreamVersionGuard, unlinkByPrefix } from '@pressroom/redis';

const brokers = inject('KAFKA_BROKERS').split(',');
const registryUrl = inject('SCHEMA_REGISTRY_URL');
/** Every topic, group and subject of this run starts with it; afterAll deletes them. */
const run = `it-eventlog-${Date.now().toString(36)}-${randomUUID().slice(0, 4)}`;
const short = () => randomUUID().slice(0, 8);

// Group joins are the slow part: short sessions (the local broker allows 1 s) keep tests quick.
const base: KafkaEventLogOptions = {
  brokers,
  clientId: `pressroom-${run}`,
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  partitions: 3,
};

/** Stream versions of conditional appends live in Redis (this run's own keys only). */
const redisUrl = inject('REDIS_URL');
const versionGuard = (variant: string) => createRedisStreamVersionGuard({ url: redisUrl, keyPrefix: `${run}:${variant}:` });
const forgetVersions = (variant: string) => async () => {
  const redis = new Redis(redisUrl);
  try {
    await unlinkByPrefix(redis, `${run}:${variant}:`);
  } finally {
    redis.disconnect();
  }
};

eventLogContract('kafka + schema registry', async () => {
  const log = await createKafkaEventLog({
    ...base,
    schemaRegistryUrl: registryUrl,
    subjectPrefix: `${run}.`,
    versionGuard: versionGuard('reg'),
  });
  return { log, topics: (suffix) => `${run}.reg.${suffix}`, cleanup: () => log.close(), forgetStreamVersions: forgetVersions('reg') };
});

eventLogContract('kafka + JSON', async () => {
  const log = await createKafkaEventLog({ ...base, versionGuard: versionGuard('json') });
  return { log, topics: (suffix) => `${run}.json.${suffix}`, cleanup: () => log.close(), forgetStreamVersions: forgetVersions('json') };
});

// The same contract on the other client of the data path (PRESSROOM_KAFKA_CLIENT=platformatic).
eventLogContract('kafka (@platformatic/kafka) + schema registry', async () => {
  const log = await createKafkaEventLog({
    ...base,
    client: 'platformatic',
    schemaRegistryUrl: registryUrl,
    subjectPrefix: `${run}.`,
    versionGuard: versionGuard('pf'),
  });
  return { log, topics: (suffix) => `${run}.pf.${suffix}`, cleanup: () => log.close(), forgetStreamVersions: forgetVersions('pf') };
});

afterAll(async () => {
  await forgetVersions('reg')();
  await forgetVersions('json')();
  await forgetVersions('pf')();
  const admin = new kafkajs.Kafka({ brokers, clientId: `${run}-cleanup`, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(run));
    if (topics.length) await admin.deleteTopics({ topics });
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.includes(run));
    if (groups.length) await admin.deleteGroups(groups).catch(() => {});
  } finally {
    await admin.disconnect();
  }
});

function capturingLogger() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> | undefined }[] = [];
  const logger: Logger = {
    debug: (msg, fields) => void lines.push({ level: 'debug', msg, fields }),
    info: (msg, fields) => void lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => void lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => void lines.push({ level: 'error', msg, fields }),
    child: () => logger,
  };
  return { logger, lines };
}

const delivered = (seq: number, requestId?: string) => sequencedEvent(seq, requestId, 'tenant-kafka');

function requested(): RenderRequested {
  return {
    eventId: randomUUID(),
    type: 'RenderRequested',
    version: 1,
    occurredAt: new Date().toISOString(),
    requestId: randomUUID(),
    tenantId: 'tenant-kafka',
    data: { mode: 'async', source: { kind: 'html', html: '<p>hi</p>' }, output: 'pdf', storage: { kind: 'default' } },
  };
}

/** The raw values of a topic, read with a plain kafkajs consumer in a throwaway group. */
async function rawValues(topic: string, count: number): Promise<Buffer[]> {
  const kafka = new kafkajs.Kafka({ brokers, clientId: `${run}-raw`, logLevel: kafkajs.logLevel.NOTHING });
  const consumer = kafka.consumer({
    groupId: `${run}.raw.${short()}`,
    sessionTimeout: 6_000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 500,
  });
  const values: Buffer[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value as Buffer) });
    await waitFor(() => values.length >= count, { timeoutMs: 30_000, description: `${count} raw values` });
  } finally {
    await consumer.disconnect();
  }
  return values;
}

describe('kafka event log', () => {
  const logs: EventLog[] = [];
  const subs: Subscription[] = [];
  afterEach(async () => {
    await Promise.allSettled(subs.splice(0).map((s) => s.stop()));
    await Promise.allSettled(logs.splice(0).map((l) => l.close()));
  });
  const open = async (opts: Partial<KafkaEventLogOptions> = {}) => {
    const log = await createKafkaEventLog({ ...base, ...opts });
    logs.push(log);
    return log;
  };

  it('writes registry wire-format values (magic byte 0, schema id) that decode through the registry', async () => {
    // Given a log with the registry, under this run's subjects
    const subjectPrefix = `${run}.wire.`;
    const log = await open({ schemaRegistryUrl: registryUrl, subjectPrefix });
    const topic = `${run}.wire.${short()}`;
    const events: PressroomEvent[] = [requested(), delivered(1)];
    // When two events of different types are appended
    await log.append(topic, events);
    // Then each value carries magic byte 0 and the id registered under <prefix>pressroom.<Type>.v1
    const values = await rawValues(topic, 2);
    const codec = await createRegistryCodec({ url: registryUrl, subjectPrefix });
    const decoded = await Promise.all(values.map((v) => codec.decode(v)));
    expect(new Set(decoded.map((e) => e.eventId))).toEqual(new Set(events.map((e) => e.eventId)));
    for (const [i, value] of values.entries()) {
      const event = decoded[i] as PressroomEvent;
      expect(value[0]).toBe(0);
      expect(value.readUInt32BE(1)).toBe(codec.schemaIds[event.type]);
      const subject = encodeURIComponent(codec.subjectOf(event.type));
      const latest = (await (await fetch(`${registryUrl}/subjects/${subject}/versions/latest`)).json()) as { id: number };
      expect(latest.id).toBe(value.readUInt32BE(1));
      expect(JSON.parse(value.subarray(5).toString('utf8'))).toEqual(events.find((e) => e.eventId === event.eventId));
    }
  });

  it("creates topics whose record time is the broker's write time (LogAppendTime), whatever a producer claims", async () => {
    // Given a topic created by the adapter, and a record whose producer claims it was made in 1970
    const log = await open();
    const topic = `${run}.append-time.${short()}`;
    await log.ensureTopics([topic]);
    const producer = new kafkajs.Kafka({ brokers, clientId: `${run}-raw`, logLevel: kafkajs.logLevel.NOTHING }).producer();
    await producer.connect();
    const before = Date.now();
    try {
      await producer.send({ topic, messages: [{ key: 'k', value: JSON.stringify(delivered(1)), timestamp: '1000' }] });
    } finally {
      await producer.disconnect();
    }
    // Then the log reports when the broker wrote it (the render worker's acceptBy check relies on it)
    const seen: number[] = [];
    await log.readAll([topic], (r) => void seen.push(r.writtenAt ?? 0));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThanOrEqual(before - 1);
  });

  it('writes plain JSON values without a registry', async () => {
    const log = await open();
    const topic = `${run}.plain.${short()}`;
    const event = delivered(1);
    await log.append(topic, [event]);
    const [value] = await rawValues(topic, 1);
    expect(JSON.parse((value as Buffer).toString('utf8'))).toEqual(event);
  });

  it('keeps group membership through a handler longer than the session timeout that heartbeats', async () => {
    // Given a 3 s session and a handler that works 5 s on the first record, heartbeating
    const { logger, lines } = capturingLogger();
    const log = await open({ logger, sessionTimeoutMs: 3_000, heartbeatIntervalMs: 300 });
    const topic = `${run}.long.${short()}`;
    const deliveries = new Map<number, number>();
    subs.push(
      await log.consume({
        group: `${run}.long.${short()}`,
        topics: [topic],
        handle: async (r, ctx) => {
          const seq = (r.event as WebhookDelivered).data.durationMs;
          deliveries.set(seq, (deliveries.get(seq) ?? 0) + 1);
          const until = Date.now() + (seq === 0 ? 5_000 : 0);
          while (Date.now() < until) {
            await new Promise((resolve) => setTimeout(resolve, 250));
            await ctx.heartbeat();
          }
        },
      }),
    );
    // When the long record and one after it (same key: same partition) are appended
    const key = randomUUID();
    await log.append(topic, [delivered(0, key), delivered(1, key)]);
    await waitFor(() => deliveries.has(1), { timeoutMs: 30_000, description: 'the record after the long one' });
    // Then each was delivered once and the member joined once: no rebalance
    expect(Object.fromEntries(deliveries)).toEqual({ 0: 1, 1: 1 });
    expect(lines.filter((l) => l.msg.includes('joined its group'))).toHaveLength(1);
    expect(lines.filter((l) => l.msg.includes('rebalancing') || l.msg.includes('crashed'))).toEqual([]);
  });

  it('rejects append with LOG_UNAVAILABLE within its bound when no broker answers', async () => {
    // Given a log pointed at a port nobody listens on
    const log = await open({ brokers: ['127.0.0.1:1'], appendTimeoutMs: 2_000 });
    // When an append is attempted
    const started = Date.now();
    const error = await log.append(`${run}.nowhere`, [delivered(0)]).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Then it fails as LOG_UNAVAILABLE (retryable) within the bound, and ping says the same
    expect(error).toMatchObject({ code: 'LOG_UNAVAILABLE', retryable: true });
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect(log.ping()).rejects.toMatchObject({ code: 'LOG_UNAVAILABLE' });
  });

  it('answers ping against the real broker', async () => {
    const log = await open();
    await expect(log.ping()).resolves.toBeUndefined();
  });
});
