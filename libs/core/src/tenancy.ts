import type { Http } from '@pressroom/schemas';
import { PressroomError, validationError, type S3EndpointPolicy } from '@pressroom/domain';
import { generateApiKey, hashApiKey } from './api-keys.ts';
import type { CatalogCommands } from './catalog-commands.ts';
import type { Catalog, Tenant } from './ports/catalog.ts';
import type { Clock, Ids } from './ports/clock.ts';
import { checkS3Endpoint } from './s3-endpoint.ts';
import type { SecretBox } from './secret-box.ts';
import type { Lookup } from './url-host.ts';

interface Deps {
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  ids: Ids;
  clock: Clock;
}

/** Operator actions shared by the admin API and the ops CLI; each is a catalog command (see decideCatalog). */
export async function createTenant(deps: Deps, body: Http.TenantCreateBody): Promise<Tenant> {
  const tenantId = body.tenantId ?? `t_${deps.ids.next().replace(/-/g, '').slice(-16)}`;
  await deps.catalogCommands.execute({ type: 'CreateTenant', tenantId, name: body.name, plan: body.plan });
  const tenant = await deps.catalog.getTenant(tenantId);
  if (!tenant) throw new PressroomError('INTERNAL', `Tenant ${tenantId} missing after it was created.`);
  return tenant;
}

/** Returns the key in clear once; only its hash is on the log and in the view. */
export async function issueApiKey(deps: Deps, tenantId: string, label: string, key = generateApiKey()): Promise<string> {
  await deps.catalogCommands.execute({ type: 'IssueApiKey', tenantId, keyHash: hashApiKey(key), label });
  return key;
}

/**
 * Stores a tenant's S3 connection after its endpoint passed the shared address policy (a
 * connection we would later dial from inside our network must not point at it: metadata,
 * loopback, private ranges unless the operator opened them). Nothing is stored on a 400.
 */
export async function registerS3Connection(
  deps: Deps & { secrets: SecretBox; s3Endpoints: S3EndpointPolicy & { lookup?: Lookup } },
  tenantId: string,
  body: Http.S3ConnectionCreateBody,
): Promise<{ connectionId: string; bucket: string; region: string; endpoint?: string }> {
  if (body.endpoint !== undefined) {
    const problem = await checkS3Endpoint(body.endpoint, deps.s3Endpoints);
    if (problem) throw validationError([problem]);
  }
  const connectionId = body.connectionId ?? `s3_${deps.ids.next().replace(/-/g, '').slice(-16)}`;
  await deps.catalogCommands.execute({
    type: 'RegisterS3Connection',
    tenantId,
    connection: {
      connectionId,
      bucket: body.bucket,
      region: body.region,
      ...(body.endpoint ? { endpoint: body.endpoint } : {}),
      ...(body.forcePathStyle !== undefined ? { forcePathStyle: body.forcePathStyle } : {}),
      accessKeyId: body.accessKeyId,
      sealedSecretAccessKey: deps.secrets.seal(body.secretAccessKey),
    },
  });
  return { connectionId, bucket: body.bucket, region: body.region, ...(body.endpoint ? { endpoint: body.endpoint } : {}) };
}

/**
 * At start: PRESSROOM_API_KEY registers that key for the `default` tenant on the high plan;
 * without it, the embedded profile creates a development key once and returns it to print.
 * Both are catalog commands that are safe to repeat (several ingress processes starting at
 * once decide again on a conflict; a key the tenant has already is not issued twice).
 */
export async function bootstrapDefaultTenant(
  deps: Deps,
  opts: { apiKey: string | undefined; createDevelopmentKey: boolean },
): Promise<{ developmentKey?: string }> {
  const existing = await deps.catalog.getTenant('default');
  if (!existing && (opts.apiKey || opts.createDevelopmentKey)) {
    try {
      await deps.catalogCommands.ensure({ type: 'CreateTenant', tenantId: 'default', name: 'Default tenant', plan: 'high' });
    } catch (err) {
      // Another process created it first: that is what we wanted.
      if (!(err instanceof PressroomError && err.code === 'CONFLICT' && (await deps.catalog.getTenant('default')))) throw err;
    }
  }
  if (opts.apiKey) {
    await deps.catalogCommands.ensure({
      type: 'IssueApiKey',
      tenantId: 'default',
      keyHash: hashApiKey(opts.apiKey),
      label: 'PRESSROOM_API_KEY',
    });
    return {};
  }
  if (opts.createDevelopmentKey && !existing) return { developmentKey: await issueApiKey(deps, 'default', 'development') };
  return {};
}
