import { join, resolve } from 'node:path';
import type Router from '@koa/router';
import {
  ArtifactStorage,
  AssetStore,
  createFileAssetIndex,
  createMemoryTemplateView,
  createTemplateEventFactory,
  type TemplateEventFactory,
  type TemplateView,
  SecretBox,
  createEventFactory,
  createFileCatalog,
  createFileEventLog,
  createMemoryDeliveryStore,
  createMemoryIdempotencyKeys,
  type IdempotencyKeys,
  createMemoryStatusView,
  systemClock,
  topicNames,
  uuidV7Ids,
  type Catalog,
  type Clock,
  type DeliveryStore,
  type EventFactory,
  type EventLog,
  type Ids,
  type Logger,
  type ObjectStore,
  type AssetIndex,
  type S3ConnectionStoreFactory,
  type PressroomConfig,
  type StatusView,
  type TopicNames,
} from '@pressroom/core';
import { createS3ConnectionStoreFactory, createS3ObjectStore } from '@pressroom/s3';
import { createLocalObjectStore, localFilesRoute } from '@pressroom/local-storage';
import { createJsonLogger, createMetrics, type Metrics, type ReadinessCheck } from '@pressroom/observability';
import { embeddedSecretKey } from './secret-key.ts';

/** Everything an app needs, with the adapters chosen once from configuration. */
export interface Runtime {
  config: PressroomConfig;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  ids: Ids;
  event: EventFactory;
  topics: TopicNames;
  log: EventLog;
  view: StatusView;
  catalog: Catalog;
  secrets: SecretBox;
  storage: ArtifactStorage;
  /** Webhook deliveries view and schedule (volatile like the status view in the embedded profile). */
  deliveries: DeliveryStore;
  /** The Idempotency-Keys of render requests (Redis, shared by every ingress; in memory in the embedded profile). */
  idempotency: IdempotencyKeys;
  /** Whether the status view lives only in this process (must be rebuilt from the log at start). */
  viewIsVolatile: boolean;
  /** Templates, every version, built from template events (volatile exactly when `view` is). */
  templates: TemplateView;
  templateEvent: TemplateEventFactory;
  /** The tenants' uploaded fonts and images; `assets.sourceFor(tenantId)` is what a render sees. */
  assets: AssetStore;
  /** Routes the ingress mounts without authentication (signed local file links). */
  publicRoutes: Router[];
  readiness: ReadinessCheck[];
  close(): Promise<void>;
}

export async function openRuntime(config: PressroomConfig, app: string, opts: { logger?: Logger } = {}): Promise<Runtime> {
  const logger = opts.logger ?? createJsonLogger({ level: config.logLevel, app });
  const metrics = createMetrics();
  const clock = systemClock;
  const ids = uuidV7Ids;
  const event = createEventFactory({ clock, ids });
  const topics = topicNames(config.topicPrefix);
  const connectionStore = createS3ConnectionStoreFactory();
  const templateEvent = createTemplateEventFactory({ clock, ids });
  const common = { config, logger, metrics, clock, ids, event, templateEvent, topics };

  if (config.profile === 'embedded') {
    const dataDir = resolve(config.dataDir);
    const secretKey = config.secretKey ?? (await embeddedSecretKey(dataDir));
    const secrets = new SecretBox(secretKey);
    const log = await createFileEventLog({ dir: join(dataDir, 'log'), logger });
    const view = createMemoryStatusView();
    const catalog = createFileCatalog({ dir: join(dataDir, 'catalog') });
    const files = createLocalObjectStore({ dir: join(dataDir, 'files'), publicBaseUrl: config.publicUrl, signingSecret: secretKey });
    return assemble(common, {
      log,
      view,
      catalog,
      secrets,
      own: files,
      connectionStore,
      templates: createMemoryTemplateView(),
      assetIndex: createFileAssetIndex({ dir: join(dataDir, 'assets') }),
      deliveries: createMemoryDeliveryStore(),
      idempotency: createMemoryIdempotencyKeys(clock),
      viewIsVolatile: true,
      publicRoutes: [localFilesRoute(files)],
      readiness: [
        { name: 'log', check: () => log.ping() },
        { name: 'storage', check: () => files.ping() },
      ],
    });
  }

  // Loaded only here, so the embedded profile never pulls in the Kafka and Redis clients.
  const { createKafkaEventLog } = await import('@pressroom/kafka');
  const {
    createRedisAssetIndex,
    createRedisCatalog,
    createRedisDeliveryStore,
    createRedisIdempotencyKeys,
    createRedisStatusView,
    createRedisTemplateView,
  } = await import('@pressroom/redis');
  const secretKey = config.secretKey as string;
  const secrets = new SecretBox(secretKey);
  const log = await createKafkaEventLog({
    brokers: config.kafkaBrokers,
    clientId: `pressroom-${app}`,
    ...(config.schemaRegistryUrl ? { schemaRegistryUrl: config.schemaRegistryUrl, subjectPrefix: config.schemaSubjectPrefix } : {}),
    partitions: config.kafkaPartitions,
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
    appendTimeoutMs: config.kafkaAppendTimeoutMs,
    logger,
  });
  // Topics are created on first use anyway; creating them up front only fixes the partition
  // count early. A broker that is down now must not stop the app from starting (readyz says it).
  await log
    .ensureTopics([topics.requestedSync, topics.requestedAsync, topics.completed, topics.webhooks, topics.templates])
    .catch((err: unknown) => {
      logger.warn('could not create topics at start; they will be created on first use', { err });
    });
  const redisUrl = config.redisUrl as string;
  const view = createRedisStatusView({ url: redisUrl, keyPrefix: config.redisPrefix, logger });
  const catalog = createRedisCatalog({ url: redisUrl, keyPrefix: config.redisPrefix });
  const own: ObjectStore & { ensureBucket(): Promise<void> } = createS3ObjectStore({
    ...(config.s3.endpoint ? { endpoint: config.s3.endpoint } : {}),
    region: config.s3.region,
    bucket: config.s3.bucket,
    accessKeyId: config.s3.accessKeyId ?? '',
    secretAccessKey: config.s3.secretAccessKey ?? '',
    forcePathStyle: config.s3.forcePathStyle,
  });
  await own.ensureBucket();
  return assemble(common, {
    log,
    view,
    catalog,
    secrets,
    own,
    connectionStore,
    templates: createRedisTemplateView({ url: redisUrl, keyPrefix: config.redisPrefix, logger }),
    assetIndex: createRedisAssetIndex({ url: redisUrl, keyPrefix: config.redisPrefix, logger }),
    deliveries: createRedisDeliveryStore({ url: redisUrl, keyPrefix: config.redisPrefix, logger }),
    idempotency: createRedisIdempotencyKeys({ url: redisUrl, keyPrefix: config.redisPrefix, logger }),
    viewIsVolatile: false,
    publicRoutes: [],
    readiness: [
      { name: 'kafka', check: () => log.ping() },
      { name: 'redis', check: () => view.ping() },
      { name: 's3', check: () => own.ping() },
    ],
  });
}

/** The parts both profiles derive the same way from their adapters, and one close for all. */
function assemble(
  common: Pick<Runtime, 'config' | 'logger' | 'metrics' | 'clock' | 'ids' | 'event' | 'templateEvent' | 'topics'>,
  parts: Pick<
    Runtime,
    'log' | 'view' | 'catalog' | 'secrets' | 'templates' | 'deliveries' | 'idempotency' | 'viewIsVolatile' | 'publicRoutes' | 'readiness'
  > & {
    own: ObjectStore;
    connectionStore: S3ConnectionStoreFactory;
    assetIndex: AssetIndex;
  },
): Runtime {
  const { own, connectionStore, assetIndex, ...rest } = parts;
  return {
    ...common,
    ...rest,
    storage: new ArtifactStorage({ own, catalog: parts.catalog, secrets: parts.secrets, connectionStore }),
    assets: new AssetStore({ index: assetIndex, objects: own, clock: common.clock }),
    async close() {
      await Promise.allSettled(
        [parts.log, parts.view, parts.catalog, parts.templates, assetIndex, parts.deliveries, parts.idempotency].map((c) => c.close()),
      );
    },
  };
}
