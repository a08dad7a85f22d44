import type { Http } from '@pressroom/schemas';
import { PressroomError, validationError, type S3EndpointPolicy } from '@pressroom/domain';
import {
  checkS3Endpoint,
  generateApiKey,
  hashApiKey,
  type Catalog,
  type Clock,
  type Ids,
  type Lookup,
  type SecretBox,
  type Tenant,
} from '@pressroom/core';

interface Deps {
  catalog: Catalog;
  ids: Ids;
  clock: Clock;
}

/** Operator actions shared by the admin API and the ops CLI. */
export async function createTenant(deps: Deps, body: Http.TenantCreateBody): Promise<Tenant> {
  const tenantId = body.tenantId ?? `t_${deps.ids.next().replace(/-/g, '').slice(-16)}`;
  if (await deps.catalog.getTenant(tenantId)) throw new PressroomError('CONFLICT', `Tenant ${tenantId} exists already.`);
  const tenant: Tenant = { tenantId, name: body.name, plan: body.plan, createdAt: deps.clock.now().toISOString() };
  await deps.catalog.putTenant(tenant);
  return tenant;
}

/** Returns the key in clear once; only its hash is stored. */
export async function issueApiKey(deps: Deps, tenantId: string, label: string, key = generateApiKey()): Promise<string> {
  await deps.catalog.putApiKey({ keyHash: hashApiKey(key), tenantId, label, createdAt: deps.clock.now().toISOString() });
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
  await deps.catalog.putS3Connection({
    tenantId,
    connectionId,
    bucket: body.bucket,
    region: body.region,
    ...(body.endpoint ? { endpoint: body.endpoint } : {}),
    ...(body.forcePathStyle !== undefined ? { forcePathStyle: body.forcePathStyle } : {}),
    accessKeyId: body.accessKeyId,
    sealedSecretAccessKey: deps.secrets.seal(body.secretAccessKey),
    createdAt: deps.clock.now().toISOString(),
  });
  return { connectionId, bucket: body.bucket, region: body.region, ...(body.endpoint ? { endpoint: body.endpoint } : {}) };
}

/**
 * At start: PRESSROOM_API_KEY registers that key for the `default` tenant on the high plan;
 * without it, the embedded profile creates a development key once and returns it to print.
 */
export async function bootstrapDefaultTenant(
  deps: Deps,
  opts: { apiKey: string | undefined; createDevelopmentKey: boolean },
): Promise<{ developmentKey?: string }> {
  const existing = await deps.catalog.getTenant('default');
  if (!existing && (opts.apiKey || opts.createDevelopmentKey)) {
    await deps.catalog.putTenant({ tenantId: 'default', name: 'Default tenant', plan: 'high', createdAt: deps.clock.now().toISOString() });
  }
  if (opts.apiKey) {
    await issueApiKey(deps, 'default', 'PRESSROOM_API_KEY', opts.apiKey);
    return {};
  }
  if (opts.createDevelopmentKey && !existing) return { developmentKey: await issueApiKey(deps, 'default', 'development') };
  return {};
}
