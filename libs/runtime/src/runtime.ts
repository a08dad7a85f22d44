import { access, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type Router from '@koa/router';
import {
  ArtifactStorage,
  AssetStore,
  createMemoryAssetIndex,
  importLegacyAssets,
  readFileAssetIndex,
  selfRebuildingAssetIndex,
  createMemoryTemplateView,
  createTemplateEventFactory,
  type TemplateEventFactory,
  type TemplateView,
  SecretBox,
  createEventFactory,
  createLinkLedger,
  createMemoryCatalog,
  createCatalogCommands,
  importLegacyCatalog,
  readFileCatalog,
  selfRebuildingCatalog,
  selfRebuildingIdempotencyKeys,
  createKeyedLogFacts,
  createSnapshottedDeliveries,
  selfRebuildingStatusView,
  selfRebuildingTemplateView,
  type CatalogCommands,
  createFileEventLog,
  createMemoryIdempotencyKeys,
  createMemoryInFlightRenders,
  createMemoryRateLimiter,
  type Quotas,
  type IdempotencyKeys,
  createMemoryStatusView,
  createMemoryDocumentStore,
  createMemoryRenderCache,
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
  type PayloadCopies,
  type AssetIndex,
  type StatusView,
  type RenderCacheIndex,
  type TopicNames,
  embeddedViewSnapshots,
  type FileEventLog,
  type MemoryStatusView,
  type MemoryTemplateView,
  type ViewSnapshots,
} from '@pressroom/core';
import type { PressroomConfig } from './config.ts';
import { deliveryLeaseMs, selfRebuildingDeliveries } from '@pressroom/webhooks';
import { lazyS3ConnectionStores } from './lazy-s3-connections.ts';
import { createLocalObjectStore, localFilesRoute, localUploadRoute } from '@pressroom/local-storage';
import { createJsonLogger, createMetrics, timedObjectStore, type Metrics, type ReadinessCheck } from '@pressroom/observability';
import { embeddedSecretKey } from './secret-key.ts';
import type * as RedisModule from '@pressroom/redis';

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
  /**
   * Copies of stored request payloads for the render worker to take (distributed profile, when
   * the app names the part, unless PRESSROOM_PAYLOAD_COPY_TTL_MS is 0); see PayloadCopies.
   */
  payloadCopies?: PayloadCopies;
  /** Webhook deliveries view and schedule; it rebuilds itself from the log when it finds itself new or lost. */
  deliveries: DeliveryStore;
  /** The Idempotency-Keys of render requests (Redis, shared by every ingress; in memory in the embedded profile). */
  idempotency: IdempotencyKeys;
  /** Rate buckets per API key and in-flight renders per tenant (Redis, shared by every ingress; in memory embedded). */
  quotas: Quotas;
  /** Whether the status view lives only in this process (must be rebuilt from the log at start). */
  viewIsVolatile: boolean;
  /** Templates, every version, built from template events (volatile exactly when `view` is). */
  templates: TemplateView;
  templateEvent: TemplateEventFactory;
  /** The tenants' uploaded fonts and images; `assets.sourceFor(tenantId)` is what a render sees. */
  assets: AssetStore;
  /** The index of the tenants' assets: a view of the assets topic that rebuilds itself when it finds itself lost. */
  assetIndex: AssetIndex;
  /**
   * The render cache index (content key → file), a view of the completed topic kept by the
   * render side's projector: in memory embedded (replayed at start), in Redis distributed.
   */
  renderCache: RenderCacheIndex;
  /**
   * The embedded profile's view snapshots (status, templates): restored by the projectors at
   * start, written periodically and at shutdown. Absent in the distributed profile.
   */
  snapshots?: ViewSnapshots;
  /** Routes the ingress mounts without authentication (signed local file links). */
  publicRoutes: Router[];
  readiness: ReadinessCheck[];
  close(): Promise<void>;
}

/** The parts an app may open; each app's main names the ones its Deps use (see `openParts`). */
export type Part =
  | 'log'
  | 'view'
  | 'catalog'
  | 'catalogCommands'
  | 'secrets'
  | 'storage'
  | 'deliveries'
  | 'idempotency'
  | 'quotas'
  | 'templates'
  | 'assets'
  | 'assetIndex'
  | 'renderCache'
  | 'payloadCopies';
export const ALL_PARTS: readonly Part[] = [
  'log',
  'view',
  'catalog',
  'catalogCommands',
  'secrets',
  'storage',
  'deliveries',
  'idempotency',
  'quotas',
  'templates',
  'assets',
  'assetIndex',
  'renderCache',
  'payloadCopies',
];

type Base = Pick<
  Runtime,
  | 'config'
  | 'logger'
  | 'metrics'
  | 'clock'
  | 'ids'
  | 'event'
  | 'templateEvent'
  | 'topics'
  | 'viewIsVolatile'
  | 'snapshots'
  | 'publicRoutes'
  | 'readiness'
  | 'close'
>;
/** What `openParts` returns: the shared base plus exactly the parts asked for. */
export type AppRuntime<K extends Part> = Base & Pick<Runtime, K>;

export interface OpenOptions {
  logger?: Logger;
  /**
   * Whether this process waits for terminal statuses (the ingress's sync calls): only then does
   * the distributed status view subscribe to the status channel, and readiness check it.
   * Default true when `view` is opened.
   */
  statusWaits?: boolean;
  /** How long a handed-out link's LinkIssued waits for others before their one append (LinkLedger's gatherMs; default 0). */
  linkGatherMs?: number;
}

/** Every part (the ingress, standalone and ops use them all). */
export async function openRuntime(config: PressroomConfig, app: string, opts: OpenOptions = {}): Promise<Runtime> {
  return openParts(config, app, ALL_PARTS, opts);
}

/**
 * Opens the parts `uses` names, and what they need, nothing else: a connection that is never
 * opened cannot fail readiness. Readiness checks only the components opened (the log, the
 * Redis connections opened, our bucket).
 */
export async function openParts<K extends Part>(
  config: PressroomConfig,
  app: string,
  uses: readonly K[],
  opts: OpenOptions = {},
): Promise<AppRuntime<K>> {
  const logger = opts.logger ?? createJsonLogger({ level: config.logLevel, app });
  const metrics = createMetrics();
  const clock = systemClock;
  const ids = uuidV7Ids;
  const event = createEventFactory({ clock, ids });
  const topics = topicNames(config.topicPrefix);
  const templateEvent = createTemplateEventFactory({ clock, ids });
  const wanted = new Set<Part>(uses);
  const closers: { close(): Promise<void> }[] = [];
  const readiness: ReadinessCheck[] = [];
  const publicRoutes: Router[] = [];
  const opened =
    config.profile === 'embedded'
      ? embeddedOpeners(config, app, logger, { clock, ids, topics })
      : distributedOpeners(config, app, logger, { clock, ids, topics, wanted, statusWaits: opts.statusWaits ?? true });
  const parts: Partial<Runtime> = {};
  // Every app that opens the log reports its consumer lag; every use of our bucket is timed.
  const need = {
    ...opened,
    log: once(async () => {
      const log = await opened.log();
      metrics.observeConsumerLag(() => log.lag?.() ?? Promise.resolve([]));
      return log;
    }),
    own: once(async () => timedObjectStore(await opened.own(), metrics)),
  };
  if (wanted.has('log')) parts.log = await need.log();
  if (wanted.has('view')) parts.view = await opened.view();
  if (wanted.has('catalog') || wanted.has('catalogCommands') || wanted.has('storage')) parts.catalog = await need.catalog();
  if (wanted.has('secrets') || wanted.has('storage')) parts.secrets = await need.secrets();
  if (wanted.has('catalogCommands')) {
    parts.catalogCommands = createCatalogCommands({ log: await need.log(), topics, catalog: await need.catalog(), ids, clock });
  }
  // Links handed out are recorded off the request path; flushed at close, before the log closes.
  const links = wanted.has('storage')
    ? createLinkLedger({
        log: await need.log(),
        topics,
        event,
        logger,
        onDropped: (reason, count) => metrics.linkEventsDroppedTotal.inc({ reason }, count),
        ...(opts.linkGatherMs ? { gatherMs: opts.linkGatherMs } : {}),
      })
    : undefined;
  if (wanted.has('storage')) {
    parts.storage = new ArtifactStorage({
      ...(links ? { links } : {}),
      own: await need.own(),
      catalog: await need.catalog(),
      secrets: await need.secrets(),
      connectionStore: lazyS3ConnectionStores(config.s3.stsEndpoint ? { stsEndpoint: config.s3.stsEndpoint } : {}),
    });
  }
  if (wanted.has('assetIndex') || wanted.has('assets')) parts.assetIndex = await opened.assetIndex();
  if (wanted.has('assets')) {
    parts.assets = new AssetStore({
      index: await opened.assetIndex(),
      objects: await need.own(),
      log: await need.log(),
      topics,
      clock,
      ids,
    });
  }
  if (wanted.has('templates')) parts.templates = await opened.templates();
  if (wanted.has('deliveries')) parts.deliveries = await opened.deliveries();
  if (wanted.has('idempotency')) parts.idempotency = await opened.idempotency();
  const snapshots = wanted.has('view') && wanted.has('templates') ? await opened.snapshots?.() : undefined;
  if (wanted.has('quotas')) parts.quotas = await opened.quotas();
  if (wanted.has('renderCache')) parts.renderCache = await opened.renderCache();
  if (wanted.has('payloadCopies')) {
    const copies = await opened.payloadCopies?.();
    if (copies) parts.payloadCopies = copies;
  }
  closers.push(...opened.closers());
  readiness.push(...opened.readiness());
  publicRoutes.push(...opened.publicRoutes());
  const base: Base = {
    config,
    logger,
    metrics,
    clock,
    ids,
    event,
    templateEvent,
    topics,
    viewIsVolatile: config.profile === 'embedded',
    ...(snapshots ? { snapshots } : {}),
    publicRoutes,
    readiness,
    async close() {
      await links?.close();
      await Promise.allSettled(closers.map((c) => c.close()));
    },
  };
  return { ...parts, ...base } as AppRuntime<K>;
}

interface Openers {
  log(): Promise<EventLog>;
  view(): Promise<StatusView>;
  catalog(): Promise<Catalog>;
  secrets(): Promise<SecretBox>;
  own(): Promise<ObjectStore>;
  assetIndex(): Promise<AssetIndex>;
  templates(): Promise<TemplateView>;
  deliveries(): Promise<DeliveryStore>;
  idempotency(): Promise<IdempotencyKeys>;
  /** The view snapshots (embedded only; opens the log, the status view and the template view). */
  snapshots?(): Promise<ViewSnapshots>;
  quotas(): Promise<Quotas>;
  renderCache(): Promise<RenderCacheIndex>;
  /** Copies of stored payloads (distributed only, when configured). */
  payloadCopies?(): Promise<PayloadCopies | undefined>;
  /** What was opened, to close (in opening order). */
  closers(): { close(): Promise<void> }[];
  readiness(): ReadinessCheck[];
  publicRoutes(): Router[];
}

type RedisLib = typeof RedisModule;

/** Memoizes an opener: every part opened once, on first need. */
function once<T>(open: () => Promise<T>): () => Promise<T> {
  let opening: Promise<T> | undefined;
  return () => (opening ??= open());
}

type Shared = { clock: Clock; ids: Ids; topics: TopicNames };

/** The embedded profile: the file log, views in memory, files and assets on the local disk. */
function embeddedOpeners(config: PressroomConfig, _app: string, logger: Logger, { clock, ids, topics }: Shared): Openers {
  const dataDir = resolve(config.dataDir);
  const closers: { close(): Promise<void> }[] = [];
  const readiness: ReadinessCheck[] = [];
  const routes: Router[] = [];
  const keep = <T extends { close(): Promise<void> }>(c: T) => (closers.push(c), c);
  const secretKey = once(async () => config.secretKey ?? (await embeddedSecretKey(dataDir)));
  const log = once(async (): Promise<FileEventLog> => {
    const l = keep(await createFileEventLog({ dir: join(dataDir, 'log'), logger }));
    readiness.push({ name: 'log', check: () => l.ping() });
    return l;
  });
  const files = once(async () => {
    // Two spare files: a sync render's payload and its output each find one made ahead.
    const f = keep(
      createLocalObjectStore({
        dir: join(dataDir, 'files'),
        publicBaseUrl: config.publicUrl,
        signingSecret: await secretKey(),
        spareFiles: 2,
      }),
    );
    routes.push(localFilesRoute(f), localUploadRoute(f, config.tools.maxInputBytes));
    readiness.push({ name: 'storage', check: () => f.ping() });
    return f;
  });
  // One document store holds the projected views (each under its own names).
  const documents = createMemoryDocumentStore();
  const view = once(async (): Promise<MemoryStatusView> => keep(createMemoryStatusView(documents)));
  const templates = once(async (): Promise<MemoryTemplateView> => keep(createMemoryTemplateView(documents)));
  // The keys' claims in memory, and the log facts they are rebuilt from (snapshotted with the views).
  const keysRebuild = once(async () => keysRebuildOf(config, await log(), { topics, logger, clock }));
  const keys = once(async () => keep(createMemoryIdempotencyKeys(clock)));
  const keyFacts = once(async () => createKeyedLogFacts(await keys(), await keysRebuild()));
  // The deliveries read through to their snapshot; the only dispatcher is the one starting (no lease in flight).
  const deliveryDocs = createSnapshottedDeliveries(documents, { inflightLeaseMs: 0 });
  const snapshots = once(async () =>
    embeddedViewSnapshots({
      dir: join(dataDir, 'snapshots'),
      log: await log(),
      status: await view(),
      templates: await templates(),
      topics,
      idempotency: await keyFacts(),
      deliveries: deliveryDocs,
      logger,
    }),
  );
  return {
    log,
    view,
    catalog: once(async () => {
      const l = await log();
      const catalog = keep(selfRebuildingCatalog(createMemoryCatalog(), { log: l, topics, logger }));
      await importFileCatalogOnce(join(dataDir, 'catalog'), { log: l, topics, ids, catalog, logger });
      return catalog;
    }),
    secrets: once(async () => new SecretBox(await secretKey())),
    own: files,
    assetIndex: once(async () => {
      const l = await log();
      await importFileAssetIndexOnce(join(dataDir, 'assets'), { log: l, topics, ids, logger });
      return keep(selfRebuildingAssetIndex(createMemoryAssetIndex(), { log: l, topics, logger }));
    }),
    templates,
    snapshots,
    // Memory: empty at start, so the first use (standalone: before its dispatcher starts) restores it
    // from its snapshot and the log after it (no attempt of a previous process is in flight).
    deliveries: once(async () => {
      const restore = (await snapshots()).get('deliveries');
      if (!restore) throw new Error('the embedded view snapshots have no deliveries');
      return keep(
        selfRebuildingDeliveries(deliveryDocs.store, {
          log: await log(),
          topics,
          logger,
          inflightLeaseMs: 0,
          rebuild: () => restore.restore(),
        }),
      );
    }),
    // Restored by the first keyed request after a start (or standalone's warm-up): from their
    // snapshot and the log after it, or from the whole log when there is no valid snapshot.
    idempotency: once(async () => {
      const restore = (await snapshots()).get('idempotency-keys');
      if (!restore) throw new Error('the embedded view snapshots have no idempotency-keys');
      return selfRebuildingIdempotencyKeys(await keys(), { ...(await keysRebuild()), rebuild: () => restore.restore() });
    }),
    quotas: once(async () => ({ rateLimiter: createMemoryRateLimiter(), inFlight: createMemoryInFlightRenders() })),
    renderCache: once(async () => keep(createMemoryRenderCache())),
    closers: () => closers,
    readiness: () => readiness,
    publicRoutes: () => routes,
  };
}

/** The distributed profile: Kafka, one Redis connection per view (opened only when used), S3. */
function distributedOpeners(
  config: PressroomConfig,
  app: string,
  logger: Logger,
  { topics, wanted, statusWaits }: Shared & { wanted: Set<Part>; statusWaits: boolean },
): Openers {
  const secretKey = config.secretKey as string;
  const url = config.redisUrl as string;
  const keyPrefix = config.redisPrefix;
  const redisOptions = { url, keyPrefix: config.redisPrefix, logger };
  const closers: { close(): Promise<void> }[] = [];
  const keep = <T extends { close(): Promise<void> }>(c: T) => (closers.push(c), c);
  /** The Redis connections opened, each pinged by the one `redis` readiness check. */
  const redisPings: (() => Promise<void>)[] = [];
  const readiness: ReadinessCheck[] = [];
  // Loaded only here, so the embedded profile never pulls in the Kafka and Redis clients.
  const redisLib = once(() => import('@pressroom/redis'));
  const redisPart = <T extends { close(): Promise<void> }>(open: (lib: RedisLib) => T, ping?: (part: T) => Promise<void>) =>
    once(async () => {
      const part = keep(open(await redisLib()));
      if (ping) {
        if (!redisPings.length) readiness.push({ name: 'redis', check: async () => void (await Promise.all(redisPings.map((p) => p()))) });
        redisPings.push(() => ping(part));
      }
      return part;
    });

  const log = once(async () => {
    const { createKafkaEventLog } = await import('@pressroom/kafka');
    // Kafka cannot check an expected version: the guard keeps stream versions in Redis and takes
    // them from the log when it lost them. An append reported failed may still land while the
    // producer retries (up to KAFKA_RETRY's 5 retries, each bounded by the append timeout), so a
    // reservation left unsettled is trusted for that long before the log is asked again. Only an
    // app that appends with expected versions (catalog commands, template writes: the ingress, the
    // dispatcher's secrets, ops) opens it.
    const versionGuard = wanted.has('catalogCommands')
      ? (await redisLib()).createRedisStreamVersionGuard({ url, keyPrefix, settleMs: 6 * config.kafkaAppendTimeoutMs + 60_000, logger })
      : undefined;
    const l = keep(
      await createKafkaEventLog({
        ...(versionGuard ? { versionGuard } : {}),
        brokers: config.kafkaBrokers,
        clientId: `pressroom-${app}`,
        ...(config.schemaRegistryUrl ? { schemaRegistryUrl: config.schemaRegistryUrl, subjectPrefix: config.schemaSubjectPrefix } : {}),
        partitions: config.kafkaPartitions,
        sessionTimeoutMs: config.kafkaSessionTimeoutMs,
        appendTimeoutMs: config.kafkaAppendTimeoutMs,
        commitIntervalMs: config.kafkaCommitIntervalMs,
        client: config.kafkaClient,
        logger,
      }),
    );
    readiness.unshift({ name: 'kafka', check: () => l.ping() });
    // Topics are created on first use anyway; creating them up front only fixes the partition
    // count early. A broker that is down now must not stop the app from starting (readyz says it).
    await l
      .ensureTopics([
        topics.requestedSync,
        topics.requestedAsync,
        topics.completed,
        topics.webhooks,
        topics.templates,
        topics.catalog,
        topics.assets,
      ])
      .catch((err: unknown) => {
        logger.warn('could not create topics at start; they will be created on first use', { err });
      });
    return l;
  });
  const own = once(async () => {
    // Loaded here, so the embedded profile never pulls in the S3 client.
    const { createS3ObjectStore } = await import('@pressroom/s3');
    const store = createS3ObjectStore({
      ...(config.s3.endpoint ? { endpoint: config.s3.endpoint } : {}),
      region: config.s3.region,
      bucket: config.s3.bucket,
      accessKeyId: config.s3.accessKeyId ?? '',
      secretAccessKey: config.s3.secretAccessKey ?? '',
      forcePathStyle: config.s3.forcePathStyle,
      requestTimeoutMs: config.s3.requestTimeoutMs,
      ownsBucket: true,
    });
    readiness.push({ name: 's3', check: () => store.ping() });
    // Storage that is down now must not stop the app from starting, in any order with it: the
    // bucket is created on the first put or readiness check that finds it missing.
    await store.ensureBucket().catch((err: unknown) => {
      logger.warn('could not check or create the bucket at start; it will be created when storage answers', { err });
    });
    return store;
  });
  const rebuildDeps = async () => ({ log: await log(), topics, logger });
  // Every Redis structure is a view of the log: one that finds itself empty rebuilds itself.
  const view = redisPart(
    (lib) => lib.createRedisStatusView({ ...redisOptions, waits: statusWaits }),
    (v) => v.ping(),
  );
  const catalog = redisPart(
    (lib) => lib.createRedisCatalog(redisOptions),
    (c) => c.ping(),
  );
  const templates = redisPart(
    (lib) => lib.createRedisTemplateView(redisOptions),
    (t) => t.ping(),
  );
  const assetIndex = redisPart((lib) => lib.createRedisAssetIndex(redisOptions));
  const idempotency = redisPart((lib) => lib.createRedisIdempotencyKeys(redisOptions));
  // No readiness check: a Redis fault lets requests through (fail-open), it does not stop the ingress.
  const quotas = redisPart((lib) => lib.createRedisQuotas(redisOptions));
  const renderCache = redisPart(
    (lib) => lib.createRedisRenderCache(redisOptions),
    (c) => c.ping(),
  );
  const deliveries = redisPart(
    (lib) => lib.createRedisDeliveryStore(redisOptions),
    (d) => d.ping(),
  );
  // No readiness check: a copy is never needed (a missing one is read from storage).
  const payloadCopies = redisPart((lib) => lib.createRedisPayloadCopies({ ...redisOptions, ttlMs: config.payloadCopyTtlMs }));
  return {
    log,
    view: once(async () => selfRebuildingStatusView(await view(), await rebuildDeps())),
    catalog: once(async () => selfRebuildingCatalog(await catalog(), await rebuildDeps())),
    secrets: once(async () => new SecretBox(secretKey)),
    own,
    assetIndex: once(async () => selfRebuildingAssetIndex(await assetIndex(), await rebuildDeps())),
    templates: once(async () => selfRebuildingTemplateView(await templates(), await rebuildDeps())),
    deliveries: once(async () =>
      selfRebuildingDeliveries(await deliveries(), { ...(await rebuildDeps()), inflightLeaseMs: deliveryLeaseMs(config.webhookTimeoutMs) }),
    ),
    idempotency: once(async () =>
      selfRebuildingIdempotencyKeys(await idempotency(), keysRebuildOf(config, await log(), { topics, logger, clock: systemClock })),
    ),
    quotas,
    renderCache,
    payloadCopies: async () => (config.payloads === 'store' && config.payloadCopyTtlMs > 0 ? payloadCopies() : undefined),
    closers: () => closers,
    readiness: () => readiness,
    publicRoutes: () => [],
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

/**
 * The embedded asset index was a folder of JSON files before assets moved to the log: its
 * records are written to the assets topic once (names already on the log are skipped), then
 * the folder is renamed `assets.imported`, kept for the operator to delete.
 */
async function importFileAssetIndexOnce(dir: string, deps: { log: EventLog; topics: TopicNames; ids: Ids; logger: Logger }): Promise<void> {
  try {
    await access(dir);
  } catch {
    return;
  }
  const result = await importLegacyAssets(await readFileAssetIndex(dir), deps);
  await rename(dir, `${dir}.imported`);
  deps.logger.info('asset index files imported to the log', { ...result, dir });
}

/** What the Idempotency-Keys need to rebuild themselves from the render topics. */
function keysRebuildOf(config: PressroomConfig, log: EventLog, deps: { topics: TopicNames; logger: Logger; clock: Clock }) {
  return { log, ...deps, ttlMs: config.idempotencyTtlMs, skewMs: config.acceptClockSkewMs };
}
