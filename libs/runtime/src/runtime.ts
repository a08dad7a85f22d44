import { access, rename } from 'node:fs/promises';
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
  createMemoryCatalog,
  createCatalogCommands,
  importLegacyCatalog,
  readFileCatalog,
  selfRebuildingCatalog,
  selfRebuildingIdempotencyKeys,
  selfRebuildingStatusView,
  selfRebuildingTemplateView,
  type CatalogCommands,
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
  /** The catalog view; it rebuilds itself from the catalog topic when it finds itself empty. */
  catalog: Catalog;
  /** Catalog writes: commands decided against the tenant's stream, appended, applied. */
  catalogCommands: CatalogCommands;
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
  const keysRebuildOf = (log: EventLog) => ({
    log,
    topics,
    logger,
    clock,
    ttlMs: config.idempotencyTtlMs,
    skewMs: config.acceptClockSkewMs,
  });

  if (config.profile === 'embedded') {
    const dataDir = resolve(config.dataDir);
    const secretKey = config.secretKey ?? (await embeddedSecretKey(dataDir));
    const secrets = new SecretBox(secretKey);
    const log = await createFileEventLog({ dir: join(dataDir, 'log'), logger });
    const view = createMemoryStatusView();
    const keysRebuild = keysRebuildOf(log);
    const catalog = selfRebuildingCatalog(createMemoryCatalog(), { log, topics, logger });
    await importFileCatalogOnce(join(dataDir, 'catalog'), { log, topics, ids, catalog, logger });
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
      // Rebuilt from the log by the first keyed request after a start.
      idempotency: selfRebuildingIdempotencyKeys(createMemoryIdempotencyKeys(clock), keysRebuild),
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
    createRedisStreamVersionGuard,
  } = await import('@pressroom/redis');
  const secretKey = config.secretKey as string;
  const secrets = new SecretBox(secretKey);
  const redisUrl = config.redisUrl as string;
  // Kafka cannot check an expected version: the guard keeps stream versions in Redis and takes
  // them from the log when it lost them. An append reported failed may still land while the
  // producer retries (up to KAFKA_RETRY's 5 retries, each bounded by the append timeout), so a
  // reservation left unsettled is trusted for that long before the log is asked again.
  const versionGuard = createRedisStreamVersionGuard({
    url: redisUrl,
    keyPrefix: config.redisPrefix,
    settleMs: 6 * config.kafkaAppendTimeoutMs + 60_000,
    logger,
  });
  const log = await createKafkaEventLog({
    versionGuard,
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
    .ensureTopics([topics.requestedSync, topics.requestedAsync, topics.completed, topics.webhooks, topics.templates, topics.catalog])
    .catch((err: unknown) => {
      logger.warn('could not create topics at start; they will be created on first use', { err });
    });
  const redisView = createRedisStatusView({ url: redisUrl, keyPrefix: config.redisPrefix, logger });
  // Every Redis structure is a view of the log: one that finds itself empty rebuilds itself.
  const view = selfRebuildingStatusView(redisView, { log, topics, logger });
  const catalog = selfRebuildingCatalog(createRedisCatalog({ url: redisUrl, keyPrefix: config.redisPrefix, logger }), {
    log,
    topics,
    logger,
  });
  const own: ObjectStore & { ensureBucket(): Promise<void> } = createS3ObjectStore({
    ...(config.s3.endpoint ? { endpoint: config.s3.endpoint } : {}),
    region: config.s3.region,
    bucket: config.s3.bucket,
    accessKeyId: config.s3.accessKeyId ?? '',
    secretAccessKey: config.s3.secretAccessKey ?? '',
    forcePathStyle: config.s3.forcePathStyle,
    requestTimeoutMs: config.s3.requestTimeoutMs,
    ownsBucket: true,
  });
  // Storage that is down now must not stop the app from starting, in any order with it: the
  // bucket is created on the first put or readiness check that finds it missing.
  await own.ensureBucket().catch((err: unknown) => {
    logger.warn('could not check or create the bucket at start; it will be created when storage answers', { err });
  });
  return assemble(common, {
    log,
    view,
    catalog,
    secrets,
    own,
    connectionStore,
    templates: selfRebuildingTemplateView(createRedisTemplateView({ url: redisUrl, keyPrefix: config.redisPrefix, logger }), {
      log,
      topics,
      logger,
    }),
    assetIndex: createRedisAssetIndex({ url: redisUrl, keyPrefix: config.redisPrefix, logger }),
    deliveries: createRedisDeliveryStore({ url: redisUrl, keyPrefix: config.redisPrefix, logger }),
    idempotency: selfRebuildingIdempotencyKeys(
      createRedisIdempotencyKeys({ url: redisUrl, keyPrefix: config.redisPrefix, logger }),
      keysRebuildOf(log),
    ),
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
    catalogCommands: createCatalogCommands({
      log: parts.log,
      topics: common.topics,
      catalog: parts.catalog,
      ids: common.ids,
      clock: common.clock,
    }),
    storage: new ArtifactStorage({ own, catalog: parts.catalog, secrets: parts.secrets, connectionStore }),
    assets: new AssetStore({ index: assetIndex, objects: own, clock: common.clock }),
    async close() {
      await Promise.allSettled(
        [parts.log, parts.view, parts.catalog, parts.templates, assetIndex, parts.deliveries, parts.idempotency].map((c) => c.close()),
      );
    },
  };
}

/**
 * The embedded catalog was a folder of JSON files before it moved to the log: its records are
 * written to the catalog topic once (tenants already on the log are skipped), then the folder
 * is renamed `catalog.imported`, kept for the operator to delete.
 */
async function importFileCatalogOnce(
  dir: string,
  deps: { log: EventLog; topics: TopicNames; ids: Ids; catalog: Catalog; logger: Logger },
): Promise<void> {
  try {
    await access(dir);
  } catch {
    return;
  }
  const result = await importLegacyCatalog(await readFileCatalog(dir), deps);
  await rename(dir, `${dir}.imported`);
  deps.logger.info('catalog files imported to the log', { ...result, dir });
}
