import { readFile } from 'node:fs/promises';
import { Command, CommanderError, Option } from 'commander';
import type { Runtime } from '@pressroom/runtime';
import { join } from 'node:path';
import type { EventLog, FileEventLog } from '@pressroom/core';
import type { PressroomConfig } from '@pressroom/runtime';
import type { LogEvent, PressroomEvent, UsageDay } from '@pressroom/schemas';
import type * as DepsModule from './deps.ts';
import { createOutput, progress, withReplayProgress, type Output } from './output.ts';

/** A one-line failure the operator can act on: printed as `error: …`, exit code 1 (2 for usage). */
class OpsError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

// The command is parsed before anything is opened: help, typos and missing options answer at once,
// even while the service holds the data dir.
const program = new Command('ops')
  .usage('[--json] <command> [options]')
  .description('Pressroom operator commands. Uses the same configuration (environment) as the service.')
  .option('--json', 'machine-readable output: JSON (JSON lines for `events`); human tables otherwise')
  .showSuggestionAfterError(true)
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text) });

// Every command loads the libraries (and installs the fault handlers) before its action runs.
program.hook('preAction', async () => {
  (await load()).exitOnFaults();
});

const out = (): Output => createOutput(Boolean(program.opts<{ json?: boolean }>().json));

type Deps = typeof DepsModule;
let loaded: Deps | undefined;
/** The libraries, loaded after parsing (`await load()` once per command, then `L`). */
const load = async (): Promise<Deps> => (loaded ??= await import('./deps.ts'));
const L = (): Deps => {
  if (!loaded) throw new Error('deps not loaded');
  return loaded;
};
let config: PressroomConfig | undefined;
const cfg = () => (config ??= L().readConfig());

/** The embedded service holds its data dir: this is how the CLI tells, and what to do about it. */
function isLocked(err: unknown): err is Error {
  return err instanceof Error && err.name === 'LogLockedError';
}

/** Opens the profile's runtime for one command and closes it after. */
async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const { openRuntime, createJsonLogger } = await load();
  const rt = await openRuntime(cfg(), 'ops', {
    logger: createJsonLogger({ level: 'warn', app: 'ops', write: (l) => process.stderr.write(l + '\n') }),
  });
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

/**
 * Runs a command on the runtime; when the embedded service is running (it holds the log), runs
 * `viaAdmin` instead, through the service's admin API, or explains why it cannot.
 */
async function onService<T>(name: string, direct: (rt: Runtime) => Promise<T>, viaAdmin?: (admin: AdminClient) => Promise<T>): Promise<T> {
  try {
    return await withRuntime(direct);
  } catch (err) {
    if (!isLocked(err)) throw err;
    if (!viaAdmin) throw new OpsError(`the service is running and holds ${cfg().dataDir}; stop it to run \`${name}\` (${err.message})`);
    return viaAdmin(adminClient(cfg()));
  }
}

interface AdminClient {
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; text: string }>;
}

/** The running service's admin API (PRESSROOM_ADMIN_TOKEN, at PRESSROOM_PUBLIC_URL or localhost:PORT). */
function adminClient(c: PressroomConfig): AdminClient {
  if (!c.adminToken) {
    throw new OpsError(
      'the service is running and holds the data dir; set PRESSROOM_ADMIN_TOKEN (as the service has it) so the CLI can use its admin API',
    );
  }
  const base = c.publicUrl.replace(/\/$/, '');
  return {
    async call(method, path, body) {
      const res = await fetch(`${base}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${c.adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }).catch((err: Error) => {
        throw new OpsError(`the service holds the data dir but its admin API at ${base} does not answer (${err.message})`);
      });
      const text = await res.text();
      if (res.status >= 400) {
        let message = `HTTP ${res.status}`;
        try {
          const e = (JSON.parse(text) as { error?: { message?: string; details?: { field: string; message: string }[] } }).error;
          const details = (e?.details ?? []).map((d) => `${d.field} ${d.message}`).join('; ');
          message = `${e?.message ?? message}${details ? ` (${details})` : ''}`;
        } catch {
          /* not the error shape */
        }
        throw new OpsError(`the service refused it: ${message}`);
      }
      return { status: res.status, text };
    },
  };
}

const json = async <T>(p: Promise<{ text: string }>): Promise<T> => JSON.parse((await p).text) as T;

/** The S3 secret key, from stdin or a file: never from the command line (shell history, `ps`). */
async function readSecret(opts: { secretAccessKeyFile?: string; secretAccessKeyStdin?: boolean }): Promise<string> {
  let text: string;
  if (opts.secretAccessKeyFile) {
    text = await readFile(opts.secretAccessKeyFile, 'utf8').catch((err: Error) => {
      throw new OpsError(`cannot read --secret-access-key-file: ${err.message}`);
    });
  } else if (opts.secretAccessKeyStdin) {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  } else throw new OpsError('give the secret key with --secret-access-key-stdin or --secret-access-key-file <path>', 2);
  const secret = text.replace(/\r?\n$/, '');
  if (!secret) throw new OpsError('the secret access key is empty', 2);
  return secret;
}

/** Total records of the topics, counted first only when a progress bar will show them. */
/**
 * How many records the topics hold, for a progress bar: the sum of the partitions' end offsets
 * (no read of the log; past retention or with transaction markers, an overestimate).
 */
async function countFor(rt: Runtime, topics: string[], o: Output): Promise<number> {
  if (o.json || !process.stderr.isTTY) return 0;
  let total = 0;
  for (const topic of topics) for (const p of await rt.log.endOffsets(topic)) total += Number(p.end);
  return total;
}

/** The runtime whose whole-log reads (every rebuild and replay) draw a progress bar, for humans at a terminal. */
const showingProgress = (rt: Runtime, o: Output): Runtime => ({ ...rt, log: withReplayProgress(rt.log, 'replaying  ', !o.json) });

const renderTopics = (rt: Runtime) => [rt.topics.requestedSync, rt.topics.requestedAsync, rt.topics.completed, rt.topics.webhooks];

// ---- tenants, keys, S3 ----
const tenants = program.command('tenants').description('tenants of the service');
tenants
  .command('create')
  .description('create a tenant')
  .requiredOption('--name <name>', 'display name')
  .addOption(new Option('--plan <plan>', 'plan').choices(['standard', 'high']).makeOptionMandatory())
  .option('--id <tenantId>', 'tenant id (default: generated)')
  .action(async (o: { name: string; plan: 'standard' | 'high'; id?: string }) => {
    const input = { name: o.name, plan: o.plan, ...(o.id ? { tenantId: o.id } : {}) };
    out().result(
      await onService(
        'tenants create',
        (rt) => L().createTenant(rt, input),
        (admin) => json(admin.call('POST', '/tenants', input)),
      ),
    );
  });

tenants
  .command('plan')
  .description("change a tenant's plan (a TenantPlanChanged event)")
  .requiredOption('--tenant <tenantId>', 'tenant')
  .addOption(new Option('--plan <plan>', 'plan').choices(['standard', 'high']).makeOptionMandatory())
  .action(async (o: { tenant: string; plan: 'standard' | 'high' }) => {
    out().result(
      await onService(
        'tenants plan',
        (rt) => L().changePlan(rt, o.tenant, o.plan),
        (admin) => json(admin.call('PUT', `/tenants/${encodeURIComponent(o.tenant)}/plan`, { plan: o.plan })),
      ),
    );
  });

const keys = program.command('keys').description("tenants' API keys (`prs_live_…`)");
const scopeOption = () => new Option('--scope <scope...>', 'what the key may do (default: both)').choices(['render', 'manage']);
keys
  .command('create')
  .description('issue an API key for a tenant (shown once)')
  .requiredOption('--tenant <tenantId>', 'tenant')
  .option('--label <label>', 'label stored with the key', 'ops')
  .addOption(scopeOption())
  .action(async (o: { tenant: string; label: string; scope?: ('render' | 'manage')[] }) => {
    const input = { label: o.label, ...(o.scope ? { scopes: o.scope } : {}) };
    out().result(
      await onService(
        'keys create',
        async (rt) => {
          if (!(await rt.catalog.getTenant(o.tenant))) throw new OpsError(`no tenant ${o.tenant}`);
          return {
            tenantId: o.tenant,
            ...(await L().createApiKey(rt, o.tenant, input)),
            note: 'Store this key now: it is not shown again.',
          };
        },
        (admin) => json(admin.call('POST', `/tenants/${encodeURIComponent(o.tenant)}/keys`, input)),
      ),
    );
  });
keys
  .command('list')
  .description("a tenant's keys: id, prefix, label, scopes, status, created, last used (never the key)")
  .requiredOption('--tenant <tenantId>', 'tenant')
  .action(async (o: { tenant: string }) => {
    const { keys: listed } = await onService(
      'keys list',
      async (rt) => ({ keys: await L().listApiKeys(rt, o.tenant) }),
      (admin) => json<{ keys: unknown[] }>(admin.call('GET', `/tenants/${encodeURIComponent(o.tenant)}/keys`)),
    );
    out().result(listed);
  });
keys
  .command('revoke')
  .description('revoke a key now (ApiKeyRevoked): it gets 401 from the next request')
  .requiredOption('--tenant <tenantId>', 'tenant')
  .requiredOption('--key <keyId>', 'the key id (key_…)')
  .action(async (o: { tenant: string; key: string }) => {
    out().result(
      await onService(
        'keys revoke',
        (rt) => L().revokeApiKey(rt, o.tenant, o.key),
        (admin) => json(admin.call('POST', `/tenants/${encodeURIComponent(o.tenant)}/keys/${encodeURIComponent(o.key)}/revoke`, {})),
      ),
    );
  });
keys
  .command('rotate')
  .description('replace a key by a new one (shown once); the old one keeps working for the overlap')
  .requiredOption('--tenant <tenantId>', 'tenant')
  .requiredOption('--key <keyId>', 'the key id (key_…)')
  .option('--overlap <seconds>', 'how long the old key keeps working', '86400')
  .action(async (o: { tenant: string; key: string; overlap: string }) => {
    const overlapSeconds = Number(o.overlap);
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0) throw new OpsError('--overlap must be a whole number of seconds', 2);
    out().result(
      await onService(
        'keys rotate',
        async (rt) => ({
          ...(await L().rotateApiKey(rt, o.tenant, o.key, overlapSeconds)),
          note: 'Store this key now: it is not shown again.',
        }),
        (admin) =>
          json(admin.call('POST', `/tenants/${encodeURIComponent(o.tenant)}/keys/${encodeURIComponent(o.key)}/rotate`, { overlapSeconds })),
      ),
    );
  });

const s3 = program.command('s3').description("tenants' S3 connections");
s3.command('list')
  .description("a tenant's S3 connections (never a secret)")
  .requiredOption('--tenant <tenantId>', 'tenant')
  .action(async (o: { tenant: string }) => {
    const { connections } = await onService(
      's3 list',
      async (rt) => ({ connections: await L().listS3Connections(rt, o.tenant) }),
      (admin) => json<{ connections: unknown[] }>(admin.call('GET', `/tenants/${encodeURIComponent(o.tenant)}/s3-connections`)),
    );
    out().result(connections);
  });
s3.command('delete')
  .description('delete an S3 connection (S3ConnectionDeleted); files already written stay in the bucket')
  .requiredOption('--tenant <tenantId>', 'tenant')
  .requiredOption('--id <connectionId>', 'connection id')
  .action(async (o: { tenant: string; id: string }) => {
    await onService(
      's3 delete',
      (rt) => L().deleteS3Connection(rt, o.tenant, o.id),
      async (admin) => {
        await admin.call('DELETE', `/tenants/${encodeURIComponent(o.tenant)}/s3-connections/${encodeURIComponent(o.id)}`);
      },
    );
    out().result({ tenantId: o.tenant, connectionId: o.id, deleted: true });
  });
s3.command('add')
  .description(
    'register an S3 connection for a tenant, after a test write and delete in its bucket; the secret key comes from stdin or a file',
  )
  .requiredOption('--tenant <tenantId>', 'tenant')
  .requiredOption('--bucket <bucket>', 'bucket')
  .requiredOption('--region <region>', 'region')
  .requiredOption('--access-key-id <id>', 'access key id')
  .option('--secret-access-key-stdin', 'read the secret access key from stdin')
  .option('--secret-access-key-file <path>', 'read the secret access key from a file')
  .addOption(new Option('--secret-access-key <secret>').hideHelp())
  .option('--endpoint <url>', 'S3-compatible endpoint')
  .option('--path-style', 'path-style addressing')
  .option('--id <connectionId>', 'connection id (default: generated)')
  .action(
    async (o: {
      tenant: string;
      bucket: string;
      region: string;
      accessKeyId: string;
      secretAccessKey?: string;
      secretAccessKeyStdin?: boolean;
      secretAccessKeyFile?: string;
      endpoint?: string;
      pathStyle?: boolean;
      id?: string;
    }) => {
      if (o.secretAccessKey !== undefined) {
        throw new OpsError(
          'secrets are not taken on the command line (shell history, ps): use --secret-access-key-stdin or --secret-access-key-file',
          2,
        );
      }
      const input = {
        bucket: o.bucket,
        region: o.region,
        accessKeyId: o.accessKeyId,
        secretAccessKey: await readSecret(o),
        ...(o.endpoint ? { endpoint: o.endpoint } : {}),
        ...(o.pathStyle ? { forcePathStyle: true } : {}),
        ...(o.id ? { connectionId: o.id } : {}),
      };
      out().result(
        await onService(
          's3 add',
          async (rt) => {
            if (!(await rt.catalog.getTenant(o.tenant))) throw new OpsError(`no tenant ${o.tenant}`);
            return L().registerS3Connection(
              { ...rt, s3Endpoints: { allowPrivate: cfg().allowPrivateS3Endpoints } },
              o.tenant,
              input,
              'operator',
            );
          },
          (admin) => json(admin.call('POST', `/tenants/${encodeURIComponent(o.tenant)}/s3-connections`, input)),
        ),
      );
    },
  );

// ---- views ----
program
  .command('status')
  .description('the status view')
  .command('rebuild')
  .description('wipe the status view and replay the log, then verify it against a view rebuilt in memory')
  .action(async () => {
    const o = out();
    const result = await onService('status rebuild', async (rt) => {
      if (rt.viewIsVolatile) return rebuildEmbeddedStatus(rt, o);
      const topics = renderTopics(rt);
      const total = await countFor(rt, topics, o);
      // Reference: the log replayed into a fresh view in memory; the live view is compared with it
      // before (how far it had drifted) and after the rebuild (it must match).
      const reference = L().createMemoryStatusView();
      const ids = new Set<string>();
      let bar = progress('replaying  ', total, !o.json);
      let batch: PressroomEvent[] = [];
      await rt.log.readAll(topics, async (r) => {
        bar.tick();
        if (!('requestId' in r.event)) return;
        ids.add(r.event.requestId);
        batch.push(r.event);
        if (batch.length >= L().REPLAY_BATCH) await reference.applyMany(batch.splice(0));
      });
      await reference.applyMany(batch);
      batch = [];
      bar.stop();
      const differing = async (label: string) => {
        const b = progress(label, ids.size, !o.json);
        const diff: string[] = [];
        // A thousand entries per round trip.
        const all = [...ids];
        for (let i = 0; i < all.length; i += 1_000) {
          const chunk = all.slice(i, i + 1_000);
          const [live, want] = await Promise.all([rt.view.getMany(chunk), reference.getMany(chunk)]);
          chunk.forEach((id, j) => {
            b.tick();
            if (L().canonicalJson(live[j] ?? null) !== L().canonicalJson(want[j] ?? null)) diff.push(id);
          });
        }
        b.stop();
        return diff;
      };
      // A view never built (a fresh or flushed Redis) has nothing to compare: the first read of it
      // would rebuild it from the log (a whole replay), which the rebuild below does anyway.
      const builtBefore = await rt.view.isBuilt();
      const before = builtBefore ? await differing('comparing  ') : undefined;
      bar = progress('rebuilding ', total, !o.json);
      const counted: EventLog = {
        append: (topic, events, options) => rt.log.append(topic, events, options),
        consume: (opts) => rt.log.consume(opts),
        ping: () => rt.log.ping(),
        endOffsets: (t) => rt.log.endOffsets(t),
        readPartition: (t, range, visit) => rt.log.readPartition(t, range, visit),
        close: async () => {},
        readAll: (t, visit, opts) =>
          rt.log.readAll(
            t,
            (r) => {
              bar.tick();
              return visit(r);
            },
            opts,
          ),
      };
      const eventsApplied = await L().rebuildStatusView({ ...rt, log: counted });
      bar.stop();
      const after = await differing('verifying  ');
      return {
        eventsApplied,
        requests: ids.size,
        builtBefore,
        differedBefore: before ? before.length : null,
        differentAfter: after.length,
        verified: after.length === 0,
        ...(after.length ? { differentRequestIds: after.slice(0, 20) } : {}),
      };
    });
    o.result(result);
    if ('verified' in result && !result.verified) process.exitCode = 1;
  });

/**
 * The embedded status view lives in the service's memory, loaded at start from its snapshot
 * and the log after it. Rebuilding it means: replay the whole log into a fresh view, compare it
 * with what a start would load (snapshot + tail), and write that fresh view as the snapshot the
 * next start loads.
 */
async function rebuildEmbeddedStatus(rt: Runtime, o: Output) {
  const snapshots = rt.snapshots;
  if (!snapshots) throw new OpsError('no view snapshots in this profile');
  const topics = renderTopics(rt).filter((t) => t !== rt.topics.webhooks);
  const loaded = await snapshots.get('status')?.restore();
  const reference = L().createMemoryStatusView();
  const fresh = L()
    .embeddedViewSnapshots({
      dir: join(cfg().dataDir, 'snapshots'),
      log: rt.log as FileEventLog,
      status: reference,
      templates: L().createMemoryTemplateView(),
      topics: rt.topics,
    })
    .get('status');
  if (!fresh) throw new OpsError('no status view snapshot');
  const bar = progress('replaying  ', await countFor(rt, topics, o), !o.json);
  const { replayed } = await fresh.restore({ fromScratch: true, onRecord: () => bar.tick() });
  bar.stop();
  const ids = reference.exportState().map((e) => e.requestId);
  const check = progress('verifying  ', ids.length, !o.json);
  const differing: string[] = [];
  for (const id of ids) {
    check.tick();
    const [start, want] = await Promise.all([rt.view.get(id), reference.get(id)]);
    if (L().canonicalJson(start ?? null) !== L().canonicalJson(want ?? null)) differing.push(id);
  }
  check.stop();
  await fresh.save();
  return {
    eventsApplied: replayed,
    requests: ids.length,
    snapshotFound: loaded?.fromSnapshot ?? false,
    differedBefore: differing.length,
    ...(differing.length ? { differentRequestIds: differing.slice(0, 20) } : {}),
    verified: true,
    note: 'replayed the whole log into a fresh status view and wrote it as the snapshot the service loads at its next start',
  };
}

program
  .command('templates')
  .description('the template view')
  .command('rebuild')
  .description('wipe the template view and replay the templates topic')
  .action(async () => {
    const o = out();
    o.result(
      await onService('templates rebuild', async (rt) =>
        rt.viewIsVolatile
          ? { eventsApplied: 0, note: 'the embedded template view is rebuilt from the log at every start of the service' }
          : { eventsApplied: await L().rebuildTemplateView(showingProgress(rt, o)) },
      ),
    );
  });

const catalog = program.command('catalog').description('the catalog view (tenants, keys, S3 connections, webhook secrets)');
catalog
  .command('rebuild')
  .description('wipe the catalog view and replay the catalog topic')
  .action(async () => {
    const o = out();
    o.result(
      await onService('catalog rebuild', async (rt) => {
        await rt.catalog.clear();
        return { eventsApplied: await L().rebuildCatalog(rt.catalog, showingProgress(rt, o)) };
      }),
    );
  });
catalog
  .command('import')
  .description('once, when upgrading the distributed profile: write the Redis catalog records kept outside the log as catalog events')
  .action(async () => {
    const c = cfg();
    // The embedded profile imports its catalog files by itself at start (see openRuntime).
    if (c.profile !== 'distributed')
      throw new OpsError('catalog import is for the distributed profile; the embedded one imports at start', 2);
    out().result(
      await withRuntime(async (rt) => {
        const { readRedisCatalogRecords } = await import('@pressroom/redis');
        const records = await readRedisCatalogRecords({ url: c.redisUrl as string, keyPrefix: c.redisPrefix });
        return L().importLegacyCatalog(records, rt);
      }),
    );
  });

const assets = program.command('assets').description("the asset index (the tenants' uploaded fonts and images)");
assets
  .command('rebuild')
  .description('wipe the asset index and replay the assets topic')
  .action(async () => {
    const o = out();
    o.result(
      await onService('assets rebuild', async (rt) => {
        await rt.assetIndex.clear();
        return { eventsApplied: await L().replayAssetIndex(rt.assetIndex, showingProgress(rt, o)) };
      }),
    );
  });
assets
  .command('import')
  .description('once, when upgrading the distributed profile: write the Redis asset index kept outside the log as asset events')
  .action(async () => {
    const c = cfg();
    // The embedded profile imports its asset files by itself at start (see openRuntime).
    if (c.profile !== 'distributed')
      throw new OpsError('assets import is for the distributed profile; the embedded one imports at start', 2);
    out().result(
      await withRuntime(async (rt) => {
        const { readLegacyRedisAssetIndex } = await import('@pressroom/redis');
        const records = await readLegacyRedisAssetIndex({ url: c.redisUrl as string, keyPrefix: c.redisPrefix });
        const result = await L().importLegacyAssets(records, rt);
        await rt.assetIndex.clear(); // so the next read rebuilds it with the imported assets
        return result;
      }),
    );
  });

// ---- audit ----
const human = (r: { topic: string; offset: string; event: LogEvent }) =>
  `${r.event.occurredAt}  ${r.event.type.padEnd(24)} ${L().eventKey(r.event).padEnd(36)} ${r.event.tenantId.padEnd(12)} ${r.topic}@${r.offset}`;

program
  .command('events')
  .description('print the log for audit (every topic, in order per partition)')
  .option('--request <key>', 'only the events of one render (requestId), template (templateId) or tenant (catalog)')
  .option('--type <EventType>', 'only events of this type')
  .action(async (opts: { request?: string; type?: string }) => {
    const o = out();
    await onService(
      'events',
      async (rt) => {
        const t = rt.topics;
        await rt.log.readAll([t.requestedSync, t.requestedAsync, t.completed, t.webhooks, t.templates, t.catalog, t.assets], (r) => {
          if (opts.request && L().eventKey(r.event) !== opts.request) return;
          if (opts.type && r.event.type !== opts.type) return;
          o.line({ topic: r.topic, partition: r.partition, offset: r.offset, event: r.event }, human(r));
        });
      },
      async (admin) => {
        const q = new URLSearchParams({ ...(opts.request ? { request: opts.request } : {}), ...(opts.type ? { type: opts.type } : {}) });
        const { text } = await admin.call('GET', `/events?${q.toString()}`);
        for (const l of text.split('\n').filter(Boolean)) {
          const r = JSON.parse(l) as { topic: string; offset: string; event: LogEvent };
          o.line(r, human(r));
        }
      },
    );
  });

// ---- usage ----
program
  .command('usage')
  .description('usage by tenant and day (UTC): renders by outcome, pages, bytes, render seconds, from the log (for billing)')
  .requiredOption('--from <YYYY-MM-DD>', 'first day (included)')
  .requiredOption('--to <YYYY-MM-DD>', 'last day (included)')
  .option('--tenant <tenantId>', 'only this tenant (default: every tenant)')
  .action(async (opts: { from: string; to: string; tenant?: string }) => {
    const problem = L().usageRangeProblem(opts.from, opts.to);
    if (problem) throw new OpsError(problem, 2);
    const range = { from: opts.from, to: opts.to, ...(opts.tenant ? { tenantId: opts.tenant } : {}) };
    const days = await onService(
      'usage',
      (rt) => L().readUsage(rt, range),
      async (admin) => {
        const q = new URLSearchParams({ from: opts.from, to: opts.to, ...(opts.tenant ? { tenant: opts.tenant } : {}) });
        return (await json<{ days: UsageDay[] }>(admin.call('GET', `/usage?${q.toString()}`))).days;
      },
    );
    const o = out();
    if (o.json) return o.result({ from: opts.from, to: opts.to, days });
    // Flat rows for the table: one line per tenant and day.
    o.result(
      days.map((d) => ({
        date: d.date,
        tenant: d.tenantId,
        succeeded: d.renders.succeeded,
        failed: d.renders.failed,
        pages: d.pages,
        bytes: d.bytes,
        renderSeconds: d.renderSeconds,
      })),
    );
  });

// ---- webhooks ----
const webhooks = program.command('webhooks').description('webhook signing secrets, replays and the deliveries view');
webhooks
  .command('secret')
  .description("show the tenant's signing secret(s), created if missing")
  .requiredOption('--tenant <tenantId>', 'tenant')
  .action(async (o: { tenant: string }) =>
    out().result(
      await onService(
        'webhooks secret',
        (rt) => L().ensureWebhookSecrets(rt, o.tenant),
        (admin) => json(admin.call('GET', `/tenants/${encodeURIComponent(o.tenant)}/webhooks/secret`)),
      ),
    ),
  );
webhooks
  .command('rotate')
  .description('new signing secret; the old one signs too for the overlap')
  .requiredOption('--tenant <tenantId>', 'tenant')
  .action(async (o: { tenant: string }) =>
    out().result(
      await onService(
        'webhooks rotate',
        (rt) => L().rotateWebhookSecret(rt, o.tenant, cfg().webhooks.secretOverlapMs),
        (admin) => json(admin.call('POST', `/tenants/${encodeURIComponent(o.tenant)}/webhooks/secret/rotate`, {})),
      ),
    ),
  );
webhooks
  .command('replay')
  .description('deliver results again (same webhook-id, new signature): one request, or every result completed in [from, to)')
  .requiredOption('--tenant <tenantId>', 'tenant')
  .option('--request <requestId>', 'one request')
  .option('--from <ISO time>', 'start of the range')
  .option('--to <ISO time>', 'end of the range (excluded)')
  .action(async (o: { tenant: string; request?: string; from?: string; to?: string }) => {
    let selector: { requestId: string } | { fromMs: number; toMs: number };
    if (o.request) selector = { requestId: o.request };
    else {
      const fromMs = Date.parse(o.from ?? '');
      const toMs = Date.parse(o.to ?? '');
      if (!(fromMs < toMs)) throw new OpsError('give --request, or --from and --to as ISO times with --from before --to', 2);
      selector = { fromMs, toMs };
    }
    const output = out();
    output.result(
      await onService(
        'webhooks replay',
        async (rt) => {
          // The embedded deliveries live in the service's memory: read them from the log here.
          if (rt.viewIsVolatile) await L().rebuildDeliveries(showingProgress(rt, output), { schedule: false });
          return L().requestWebhookReplay(rt, { tenantId: o.tenant, selector, requestedBy: 'ops' });
        },
        (admin) =>
          json(
            admin.call(
              'POST',
              `/tenants/${encodeURIComponent(o.tenant)}/webhooks/replay`,
              'requestId' in selector
                ? { requestId: selector.requestId }
                : { from: new Date(selector.fromMs).toISOString(), to: new Date(selector.toMs).toISOString() },
            ),
          ),
      ),
    );
  });
webhooks
  .command('rebuild')
  .description('wipe the deliveries view and schedule, replay the log')
  .action(async () => {
    const o = out();
    o.result(
      await onService('webhooks rebuild', async (rt) => ({
        eventsApplied: await L().rebuildDeliveries(showingProgress(rt, o), { schedule: true }),
      })),
    );
  });

// ---- run ----
try {
  if (process.argv.length <= 2) {
    program.outputHelp();
  } else {
    await program.parseAsync(process.argv);
  }
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and version exit 0; a usage error (already printed by commander, one line) exits 2.
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (err instanceof OpsError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = err.exitCode;
  } else if (loaded && err instanceof loaded.PressroomError) {
    const details = (err.details ?? []).map((d) => `${d.field} ${d.message}`).join('; ');
    process.stderr.write(`error: ${err.message}${details ? ` (${details})` : ''}\n`);
    process.exitCode = err.code === 'VALIDATION_FAILED' ? 2 : 1;
  } else {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
