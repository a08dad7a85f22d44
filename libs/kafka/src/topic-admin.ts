import kafkajs, { type Admin, type Kafka } from 'kafkajs';
import { silentLogger, type Logger } from '@pressroom/core';
import { KAFKA_RETRY, kafkajsLogCreator } from './kafkajs-settings.ts';
import { mendKafkajsIdleLoop } from './kafkajs-idle-loop.ts';

/** Attempts at creating topics when the broker answers a retriable error (metadata catching up). */
const CREATE_ATTEMPTS = 5;

export interface TopicSettings {
  /** Partitions of a topic created here. One render's events stay on one partition (key = requestId). */
  partitions: number;
  /** Replication factor of a topic created here. Default: the broker's `default.replication.factor`. */
  replicationFactor?: number;
}

/**
 * One lazily connected admin client: creates missing topics (idempotent, concurrent callers
 * share the work) and answers which topics exist. A failed connection is retried by the next call.
 */
export class TopicAdmin {
  private connecting: Promise<Admin> | undefined;
  private client: Admin | undefined;
  private readonly known = new Map<string, Promise<void>>();

  private readonly kafka: Kafka;
  private readonly settings: TopicSettings;
  private readonly logger: Logger;
  constructor(kafka: Kafka, settings: TopicSettings, logger: Logger = silentLogger) {
    this.kafka = kafka;
    this.settings = settings;
    this.logger = logger;
  }

  admin(): Promise<Admin> {
    if (!this.connecting) {
      const admin = this.kafka.admin();
      const connecting = admin.connect().then(() => admin);
      this.client = admin;
      this.connecting = connecting;
      connecting.catch(() => {
        if (this.connecting !== connecting) return;
        this.connecting = undefined;
        this.client = undefined;
        void admin.disconnect().catch(() => {});
      });
    }
    return this.connecting;
  }

  /** Creates the topics that do not exist yet; a topic is checked once per process. */
  ensure(names: string[], partitions = this.settings.partitions): Promise<void> {
    const unknown = [...new Set(names)].filter((n) => !this.known.has(n));
    if (unknown.length > 0) {
      const created = this.create(unknown, partitions);
      for (const name of unknown) {
        this.known.set(name, created);
        created.catch(() => this.known.delete(name));
      }
    }
    return Promise.all(names.map((n) => this.known.get(n) ?? Promise.resolve())).then(() => undefined);
  }

  /**
   * Creating and waiting for leaders can meet a broker whose metadata has not caught up with a
   * topic it just created ("This server does not host this topic-partition", retriable, which
   * kafkajs's leader wait does not retry): try again, briefly; a topic that exists by then is not
   * created twice.
   */
  private async create(names: string[], partitions: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.createOnce(names, partitions);
      } catch (err) {
        if (!(err as { retriable?: boolean }).retriable || attempt >= CREATE_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  }

  private async createOnce(names: string[], partitions: number): Promise<void> {
    const admin = await this.admin();
    const existing = new Set(await admin.listTopics());
    const missing = names.filter((n) => !existing.has(n));
    if (missing.length === 0) return;
    const { replicationFactor } = this.settings;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({
        topic,
        numPartitions: partitions,
        ...(replicationFactor ? { replicationFactor } : {}),
        // Record timestamps are the broker's write time, whatever a producer sets: the render
        // worker compares them with a request's acceptBy (see admitsRender in @pressroom/domain).
        configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }],
      })),
    });
    this.logger.info('kafka: created topics', { topics: missing, partitions });
  }

  /** The subset of `names` that exists on the cluster now. */
  async existing(names: string[]): Promise<string[]> {
    const all = new Set(await (await this.admin()).listTopics());
    return names.filter((n) => all.has(n));
  }

  /** Disconnects at once, also while a connection attempt is still retrying. */
  async close(): Promise<void> {
    const client = this.client;
    this.connecting = undefined;
    this.client = undefined;
    await client?.disconnect();
  }
}

export interface EnsureTopicsOptions extends TopicSettings {
  brokers: string[];
  clientId?: string;
  topics: string[];
  logger?: Logger;
}

/** Creates the missing topics with their own short-lived connection (ops CLI, start-up scripts). */
export async function ensureTopics(opts: EnsureTopicsOptions): Promise<void> {
  const logger = opts.logger ?? silentLogger;
  mendKafkajsIdleLoop();
  const kafka = new kafkajs.Kafka({
    brokers: opts.brokers,
    clientId: opts.clientId ?? 'pressroom-topic-admin',
    retry: KAFKA_RETRY,
    logLevel: kafkajs.logLevel.WARN,
    logCreator: kafkajsLogCreator(logger),
  });
  const admin = new TopicAdmin(kafka, opts, logger);
  try {
    await admin.ensure(opts.topics);
  } finally {
    await admin.close();
  }
}
