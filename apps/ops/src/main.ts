import { parseArgs } from 'node:util';
import { exitOnFaults, openRuntime } from '@pressroom/runtime';
import { eventKey } from '@pressroom/core';
import { PressroomError } from '@pressroom/domain';
import { createJsonLogger } from '@pressroom/observability';
import { createTenant, issueApiKey, registerS3Connection } from '@pressroom/ingress';
import { rebuildStatusView, rebuildTemplateView } from '@pressroom/status-projector';
import {
  ensureWebhookSecrets,
  importLegacyAssets,
  importLegacyCatalog,
  rebuildCatalog,
  replayAssetIndex,
  rebuildDeliveries,
  requestWebhookReplay,
  rotateWebhookSecret,
} from '@pressroom/core';
import { readConfig } from './config.ts';

const usage = `pressroom ops — operator commands (uses the same configuration as the service)

  tenants create --name <name> --plan <standard|high> [--id <tenantId>]
  keys create --tenant <tenantId> [--label <label>]        prints the new key once
  s3 add --tenant <tenantId> --bucket <b> --region <r> --access-key-id <k> --secret-access-key <s>
         [--endpoint <url>] [--path-style] [--id <connectionId>]
  status rebuild                                          wipe the status view and replay the log
  templates rebuild                                       wipe the template view and replay the templates topic
  catalog rebuild                                         wipe the catalog view (tenants, keys, S3, secrets) and replay the catalog topic
  catalog import                                          once, when upgrading: write the catalog records kept outside the log
                                                          (the distributed profile's Redis keys) as catalog events; tenants
                                                          already on the log are skipped. Run it before any catalog write.
  assets rebuild                                          wipe the asset index and replay the assets topic
  assets import                                           once, when upgrading: write the asset index kept outside the log
                                                          (the distributed profile's Redis hashes) as asset events; names
                                                          already on the log are skipped
  events [--request <requestId>] [--type <EventType>]     print the log (JSON lines), for audit
  webhooks secret --tenant <tenantId>                     show the tenant's signing secret(s), created if missing
  webhooks rotate --tenant <tenantId>                     new signing secret; the old one signs too for the overlap
  webhooks replay --tenant <tenantId> (--request <requestId> | --from <ISO time> --to <ISO time>)
                                                          deliver results again (same webhook-id, new signature)
  webhooks rebuild                                        wipe the deliveries view and schedule, replay the log
`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    plan: { type: 'string' },
    id: { type: 'string' },
    tenant: { type: 'string' },
    label: { type: 'string' },
    bucket: { type: 'string' },
    region: { type: 'string' },
    endpoint: { type: 'string' },
    'path-style': { type: 'boolean' },
    'access-key-id': { type: 'string' },
    'secret-access-key': { type: 'string' },
    request: { type: 'string' },
    type: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

function need(name: keyof typeof values): string {
  const v = values[name];
  if (typeof v !== 'string' || !v) fail(`--${name} is required`);
  return v;
}
function fail(message: string): never {
  process.stderr.write(`${message}\n\n${usage}`);
  process.exit(2);
}

exitOnFaults();
const [noun, verb] = positionals;
if (values.help || !noun) {
  process.stdout.write(usage);
  process.exit(0);
}

const config = readConfig();
const rt = await openRuntime(config, 'ops', {
  logger: createJsonLogger({ level: 'warn', app: 'ops', write: (l) => process.stderr.write(l + '\n') }),
});
const out = (value: unknown) => process.stdout.write(JSON.stringify(value, null, 2) + '\n');
try {
  switch (`${noun} ${verb ?? ''}`.trim()) {
    case 'tenants create': {
      const plan = need('plan');
      if (plan !== 'standard' && plan !== 'high') fail('--plan must be standard or high');
      out(await createTenant(rt, { name: need('name'), plan, ...(values.id ? { tenantId: values.id } : {}) }));
      break;
    }
    case 'keys create': {
      const tenantId = need('tenant');
      if (!(await rt.catalog.getTenant(tenantId))) fail(`no tenant ${tenantId}`);
      out({ tenantId, apiKey: await issueApiKey(rt, tenantId, values.label ?? 'ops'), note: 'Store this key now: it is not shown again.' });
      break;
    }
    case 's3 add': {
      const tenantId = need('tenant');
      if (!(await rt.catalog.getTenant(tenantId))) fail(`no tenant ${tenantId}`);
      out(
        await registerS3Connection({ ...rt, s3Endpoints: { allowPrivate: config.allowPrivateS3Endpoints } }, tenantId, {
          bucket: need('bucket'),
          region: need('region'),
          accessKeyId: need('access-key-id'),
          secretAccessKey: need('secret-access-key'),
          ...(values.endpoint ? { endpoint: values.endpoint } : {}),
          ...(values['path-style'] ? { forcePathStyle: true } : {}),
          ...(values.id ? { connectionId: values.id } : {}),
        }).catch((err: unknown) => {
          // A refused endpoint (address policy) is the operator's input: say why, like the admin API's 400.
          if (err instanceof PressroomError && err.details) fail(err.details.map((d) => `--${d.field} ${d.message}`).join('\n'));
          throw err;
        }),
      );
      break;
    }
    case 'status rebuild':
      out({ eventsApplied: await rebuildStatusView(rt) });
      break;
    case 'templates rebuild':
      out({ eventsApplied: await rebuildTemplateView(rt) });
      break;
    case 'catalog rebuild':
      await rt.catalog.clear();
      out({ eventsApplied: await rebuildCatalog(rt.catalog, rt) });
      break;
    case 'catalog import': {
      // The embedded profile imports its catalog files by itself at start (see openRuntime).
      if (config.profile !== 'distributed') fail('catalog import is for the distributed profile; the embedded one imports at start');
      const { readRedisCatalogRecords } = await import('@pressroom/redis');
      const records = await readRedisCatalogRecords({ url: config.redisUrl as string, keyPrefix: config.redisPrefix });
      out(await importLegacyCatalog(records, rt));
      break;
    }
    case 'assets rebuild':
      await rt.assetIndex.clear();
      out({ eventsApplied: await replayAssetIndex(rt.assetIndex, rt) });
      break;
    case 'assets import': {
      // The embedded profile imports its asset files by itself at start (see openRuntime).
      if (config.profile !== 'distributed') fail('assets import is for the distributed profile; the embedded one imports at start');
      const { readLegacyRedisAssetIndex } = await import('@pressroom/redis');
      const records = await readLegacyRedisAssetIndex({ url: config.redisUrl as string, keyPrefix: config.redisPrefix });
      const result = await importLegacyAssets(records, rt);
      await rt.assetIndex.clear(); // so the next read rebuilds it with the imported assets
      out(result);
      break;
    }
    case 'events': {
      const t = rt.topics;
      await rt.log.readAll([t.requestedSync, t.requestedAsync, t.completed, t.webhooks, t.templates, t.catalog, t.assets], (r) => {
        if (values.request && eventKey(r.event) !== values.request) return;
        if (values.type && r.event.type !== values.type) return;
        process.stdout.write(JSON.stringify({ topic: r.topic, partition: r.partition, offset: r.offset, event: r.event }) + '\n');
      });
      break;
    }
    case 'webhooks secret':
      out(await ensureWebhookSecrets(rt, need('tenant')));
      break;
    case 'webhooks rotate':
      out(await rotateWebhookSecret(rt, need('tenant'), config.webhooks.secretOverlapMs));
      break;
    case 'webhooks replay': {
      const tenantId = need('tenant');
      let selector: { requestId: string } | { fromMs: number; toMs: number };
      if (values.request) selector = { requestId: values.request };
      else {
        selector = { fromMs: Date.parse(need('from')), toMs: Date.parse(need('to')) };
        if (!(selector.fromMs < selector.toMs)) fail('--from and --to must be ISO times, --from before --to');
      }
      // The embedded deliveries live in the service's memory: read them from the log here.
      if (rt.viewIsVolatile) await rebuildDeliveries(rt, { schedule: false });
      out(await requestWebhookReplay(rt, { tenantId, selector, requestedBy: 'ops' }));
      break;
    }
    case 'webhooks rebuild':
      out({ eventsApplied: await rebuildDeliveries(rt, { schedule: true }) });
      break;
    default:
      fail(`unknown command: ${positionals.join(' ')}`);
  }
} finally {
  await rt.close();
}
