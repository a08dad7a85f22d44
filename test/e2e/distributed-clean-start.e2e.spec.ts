import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { download } from '../support/api-client.ts';
import { pdfText } from '../support/pdf-tools.ts';
import { runOps } from '../support/ops-cli.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;
const brokers = () => inject('KAFKA_BROKERS').split(',');

/** Every value on the topics, read raw by an outside consumer (its own group). */
async function topicValues(topics: string[]): Promise<Buffer[]> {
  const kafka = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  let total = 0;
  for (const topic of topics) total += (await admin.fetchTopicOffsets(topic)).reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `outside-reader-${randomUUID()}` });
  const values: Buffer[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value ?? Buffer.alloc(0)) });
  await waitFor(() => values.length >= total, { timeoutMs: 30_000, description: `${total} records` });
  await consumer.disconnect();
  return values;
}

async function waitForStatus(env: Env, requestId: string): Promise<any> {
  return waitFor(
    async () => {
      const s = await env.api.get(`/v1/pdf/status/${requestId}`);
      return s.status === 200 && s.json.renderStatus !== 'ONGOING' ? s.json : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 300, description: `request ${requestId} to end` },
  );
}

/** All four apps at once, as an orchestrator starts them: none may crash on a registry race. */
async function startAllAtOnce(env: Env): Promise<void> {
  await Promise.all([
    env.start('ingress', env.ingressPort),
    env.start('render-worker'),
    env.start('status-projector'),
    env.start('webhook-dispatcher'),
  ]);
}

describe('distributed profile: clean start and upgrade against the schema registry', () => {
  const receiver = new WebhookReceiver();
  let env: Env | undefined;
  beforeAll(() => receiver.start());
  afterEach(async () => {
    await env?.stopAll();
    env = undefined;
  });
  afterAll(() => receiver.stop());

  it('starts all four apps at once on an empty registry; an outside reader with the client’s defaults decodes every event', async () => {
    env = await distributedEnv(); // its own subject prefix: empty subjects
    await startAllAtOnce(env);
    const accepted = await env.api.post('/v1/html-to-pdf/async', { html: '<p>Fresh start</p>', webhook: receiver.url('/fresh') });
    expect(accepted.status).toBe(200);
    await receiver.waitForCall('/fresh');
    const status = await waitForStatus(env, accepted.json.requestId);
    expect(status.renderStatus).toBe('SUCCESS');
    expect(await pdfText((await download(status.signedUrl)).bytes)).toContain('Fresh start');

    const reader = new SchemaRegistry({ host: inject('SCHEMA_REGISTRY_URL') }); // default options: strict Ajv, no formats
    const p = env.env.PRESSROOM_TOPIC_PREFIX!;
    const values = await topicValues([`${p}.render.requested.async`, `${p}.render.completed`, `${p}.webhook.events`]);
    const decoded = (await Promise.all(values.map((v) => reader.decode(v)))) as { type: string; requestId: string }[];
    expect(decoded.filter((e) => e.requestId === accepted.json.requestId).map((e) => e.type)).toEqual(
      expect.arrayContaining(['RenderRequested', 'RenderSucceeded', 'WebhookAttemptStarted', 'WebhookAttempted', 'WebhookDelivered']),
    );
  }, 180_000);

  it('upgrades a deployment: events of the previous release on the log, the new build reads them and its own', async () => {
    env = await distributedEnv();
    const p = env.env.PRESSROOM_TOPIC_PREFIX!;
    const subject = (type: string) => `${env!.env.PRESSROOM_SCHEMA_SUBJECT_PREFIX}pressroom.${type}.v1`;
    // The previous release: its schemas, registered as it did (the client's register, BACKWARD),
    // and its events on the log: one render still waiting, one that failed.
    const old = new SchemaRegistry(
      { host: inject('SCHEMA_REGISTRY_URL') },
      { [SchemaType.JSON]: { strict: false, validateFormats: false } },
    );
    const previous = (type: string) =>
      readFileSync(join(import.meta.dirname, '..', 'fixtures', 'previous-release', `${type}.v1.json`), 'utf8');
    const { id: requestedId } = await old.register(
      { type: SchemaType.JSON, schema: previous('RenderRequested') },
      { subject: subject('RenderRequested') },
    );
    const { id: failedId } = await old.register(
      { type: SchemaType.JSON, schema: previous('RenderFailed') },
      { subject: subject('RenderFailed') },
    );
    const waiting = randomUUID();
    const failed = randomUUID();
    const envelope = (type: string, requestId: string, data: unknown) => ({
      eventId: randomUUID(),
      type,
      version: 1,
      occurredAt: new Date().toISOString(),
      requestId,
      tenantId: 'default',
      data,
    });
    const kafka = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: ['render.requested.sync', 'render.requested.async', 'render.completed', 'webhook.events', 'templates'].map((t) => ({
        topic: `${p}.${t}`,
        numPartitions: 3,
      })),
    });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const request = (requestId: string, text: string) =>
      envelope('RenderRequested', requestId, {
        mode: 'async',
        webhook: receiver.url('/upgraded'),
        source: { kind: 'html', html: `<p>${text}</p>` },
        output: 'pdf',
        storage: { kind: 'default' },
      });
    await producer.send({
      topic: `${p}.render.requested.async`,
      messages: [
        { key: waiting, value: await old.encode(requestedId, request(waiting, 'Written by the previous release')) },
        { key: failed, value: await old.encode(requestedId, request(failed, 'Failed before the upgrade')) },
      ],
    });
    await producer.send({
      topic: `${p}.render.completed`,
      messages: [
        {
          key: failed,
          value: await old.encode(
            failedId,
            envelope('RenderFailed', failed, {
              mode: 'async',
              webhook: receiver.url('/upgraded'),
              error: { code: 'TEMPLATE_ERROR', message: 'it was broken' },
              executionMs: 5,
              worker: 'previous',
            }),
          ),
        },
      ],
    });
    await producer.disconnect();

    // The new build, all apps at once, on the registry and log the previous release left.
    await startAllAtOnce(env);
    const before = await waitForStatus(env, waiting);
    expect(before.renderStatus).toBe('SUCCESS');
    expect(await pdfText((await download(before.signedUrl)).bytes)).toContain('Written by the previous release');
    expect(await waitForStatus(env, failed)).toMatchObject({ renderStatus: 'FAILED', error: { code: 'TEMPLATE_ERROR' } });
    const fresh = await env.api.post('/v1/html-to-pdf/async', {
      html: '<p>Written by the new build</p>',
      webhook: receiver.url('/upgraded'),
    });
    expect((await waitForStatus(env, fresh.json.requestId)).renderStatus).toBe('SUCCESS');

    // One render's history spans both releases: the old RenderRequested, the new outcome.
    const audit = await runOps(env.env, ['events', '--request', waiting]);
    expect(audit.code, audit.stderr).toBe(0);
    const types = audit.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string } }).event.type);
    expect(types).toEqual(expect.arrayContaining(['RenderRequested', 'RenderSucceeded']));
    // The new build's events decode for an outside reader with the defaults.
    const reader = new SchemaRegistry({ host: inject('SCHEMA_REGISTRY_URL') });
    const completed = await topicValues([`${p}.render.completed`]);
    const ours = completed.filter((v) => v.readUInt32BE(1) !== failedId);
    // Every value decodes; the outcomes among them are successes (each attempt is recorded too).
    const decoded = await Promise.all(ours.map(async (v) => ((await reader.decode(v)) as { type: string }).type));
    const outcomes = decoded.filter((t) => t !== 'RenderAttemptStarted');
    expect(outcomes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(outcomes)).toEqual(new Set(['RenderSucceeded']));
  }, 180_000);
});
