import type { Http, S3ConnectionRegistered, S3ConnectionSummary, S3ConnectionUpdateBody } from '@pressroom/schemas';
import { PressroomError, notFound, planForbids, validationError, type FieldProblem, type S3EndpointPolicy } from '@pressroom/domain';
import type { ArtifactStorage } from './artifact-storage.ts';
import type { CatalogCommands } from './catalog-commands.ts';
import type { Catalog, S3Connection } from './ports/catalog.ts';
import type { Clock, Ids } from './ports/clock.ts';
import { checkS3Endpoint } from './s3-endpoint.ts';
import type { SecretBox } from './secret-box.ts';
import type { Lookup } from './url-host.ts';

export interface S3ConnectionDeps {
  catalog: Catalog;
  catalogCommands: CatalogCommands;
  ids: Ids;
  clock: Clock;
  secrets: SecretBox;
  /** Makes the test write (and delete) of a new or changed connection. */
  storage: Pick<ArtifactStorage, 'testConnection'>;
  s3Endpoints: S3EndpointPolicy & { lookup?: Lookup };
}

/** Who asks: a tenant for itself is held to its plan; the operator may set a connection up for any plan. */
export type Requester = 'tenant' | 'operator';

/** What a listing shows of a connection: never a secret (the access key id is not one). */
export function connectionSummary(c: S3Connection): S3ConnectionSummary {
  return {
    connectionId: c.connectionId,
    bucket: c.bucket,
    region: c.region,
    ...(c.endpoint !== undefined ? { endpoint: c.endpoint } : {}),
    ...(c.forcePathStyle !== undefined ? { forcePathStyle: c.forcePathStyle } : {}),
    credentials: c.roleArn !== undefined ? 'role' : 'static',
    ...(c.accessKeyId !== undefined ? { accessKeyId: c.accessKeyId } : {}),
    ...(c.roleArn !== undefined ? { roleArn: c.roleArn } : {}),
    ...(c.externalId !== undefined ? { externalId: c.externalId } : {}),
    createdAt: c.createdAt,
  };
}

/** Static credentials or a role, never both nor neither. */
function credentialProblems(body: S3ConnectionUpdateBody): FieldProblem[] {
  const statik = body.accessKeyId !== undefined || body.secretAccessKey !== undefined;
  const role = body.roleArn !== undefined || body.externalId !== undefined;
  if (statik && role)
    return [{ field: 'roleArn', message: 'give static credentials (accessKeyId, secretAccessKey) or a role (roleArn), not both' }];
  if (role && body.roleArn === undefined) return [{ field: 'roleArn', message: 'is required with externalId' }];
  if (!role && body.accessKeyId === undefined) return [{ field: 'accessKeyId', message: 'is required (or give a roleArn)' }];
  if (!role && body.secretAccessKey === undefined) return [{ field: 'secretAccessKey', message: 'is required with accessKeyId' }];
  return [];
}

/**
 * Checks a connection, then writes it: the endpoint through the shared address policy (400: a
 * connection we would dial from inside our network must not point at metadata, loopback or
 * private ranges unless the operator opened them), then a test write and delete in its bucket
 * (422 S3_CONNECTION_TEST_FAILED with the storage's reason). Nothing is stored when either fails.
 */
async function checkAndWrite(
  deps: S3ConnectionDeps,
  tenantId: string,
  connectionId: string,
  body: S3ConnectionUpdateBody,
): Promise<S3ConnectionSummary> {
  const problems = credentialProblems(body);
  if (problems.length > 0) throw validationError(problems);
  if (body.endpoint !== undefined) {
    const problem = await checkS3Endpoint(body.endpoint, deps.s3Endpoints);
    if (problem) throw validationError([problem]);
  }
  const secretAccessKey = body.secretAccessKey;
  const open = {
    bucket: body.bucket,
    region: body.region,
    ...(body.endpoint !== undefined ? { endpoint: body.endpoint } : {}),
    ...(body.forcePathStyle !== undefined ? { forcePathStyle: body.forcePathStyle } : {}),
    ...(body.accessKeyId !== undefined ? { accessKeyId: body.accessKeyId } : {}),
    ...(secretAccessKey !== undefined ? { secretAccessKey } : {}),
    ...(body.roleArn !== undefined ? { roleArn: body.roleArn } : {}),
    ...(body.externalId !== undefined ? { externalId: body.externalId } : {}),
  };
  const reason = await deps.storage.testConnection(open, deps.ids.next());
  if (reason !== undefined) {
    throw new PressroomError('S3_CONNECTION_TEST_FAILED', `Pressroom could not write to this connection: ${reason}`, {
      details: [{ field: 'bucket', message: reason }],
    });
  }
  const connection: S3ConnectionRegistered['data'] = {
    connectionId,
    bucket: open.bucket,
    region: open.region,
    ...(open.endpoint !== undefined ? { endpoint: open.endpoint } : {}),
    ...(open.forcePathStyle !== undefined ? { forcePathStyle: open.forcePathStyle } : {}),
    ...(open.accessKeyId !== undefined ? { accessKeyId: open.accessKeyId } : {}),
    ...(secretAccessKey !== undefined ? { sealedSecretAccessKey: deps.secrets.seal(secretAccessKey) } : {}),
    ...(open.roleArn !== undefined ? { roleArn: open.roleArn } : {}),
    ...(open.externalId !== undefined ? { externalId: open.externalId } : {}),
  };
  await deps.catalogCommands.execute({ type: 'RegisterS3Connection', tenantId, connection });
  const written = await deps.catalog.getS3Connection(tenantId, connectionId);
  if (!written) throw new PressroomError('INTERNAL', `S3 connection ${connectionId} missing after it was written.`);
  return connectionSummary(written);
}

async function tenantPlanAllows(deps: S3ConnectionDeps, tenantId: string, by: Requester): Promise<void> {
  const tenant = await deps.catalog.getTenant(tenantId);
  if (!tenant) throw notFound(`Tenant ${tenantId}`);
  const refused = by === 'tenant' ? planForbids(tenant.plan, 'custom-s3') : undefined;
  if (refused) throw refused;
}

/**
 * Registers a connection. A tenant may not take an id it has already (409: change it with an
 * update); the operator's registration of a known id replaces it, as it always did.
 */
export async function registerS3Connection(
  deps: S3ConnectionDeps,
  tenantId: string,
  body: Http.S3ConnectionCreateBody,
  by: Requester = 'operator',
): Promise<S3ConnectionSummary> {
  await tenantPlanAllows(deps, tenantId, by);
  const { connectionId: given, ...fields } = body;
  const connectionId = given ?? `s3_${deps.ids.next().replace(/-/g, '').slice(-16)}`;
  if (by === 'tenant' && (await deps.catalog.getS3Connection(tenantId, connectionId))) {
    throw new PressroomError('CONFLICT', `S3 connection ${connectionId} exists already; change it with PUT.`);
  }
  return checkAndWrite(deps, tenantId, connectionId, fields);
}

/**
 * Replaces a connection's settings (tested again like a new one). The secret may be left out
 * when the access key id stays the same: the stored one is kept. Unknown or another tenant's: 404.
 */
export async function updateS3Connection(
  deps: S3ConnectionDeps,
  tenantId: string,
  connectionId: string,
  body: S3ConnectionUpdateBody,
  by: Requester = 'operator',
): Promise<S3ConnectionSummary> {
  const current = await deps.catalog.getS3Connection(tenantId, connectionId);
  if (!current) throw notFound(`S3 connection ${connectionId}`);
  await tenantPlanAllows(deps, tenantId, by);
  const keep =
    body.secretAccessKey === undefined && body.accessKeyId !== undefined && body.accessKeyId === current.accessKeyId
      ? current.sealedSecretAccessKey
      : undefined;
  const withKept = keep !== undefined ? { ...body, secretAccessKey: deps.secrets.open(keep) } : body;
  return checkAndWrite(deps, tenantId, connectionId, withKept);
}

/** Deletes a connection (S3ConnectionDeleted); unknown or another tenant's: 404. Files already written stay in the bucket. */
export async function deleteS3Connection(
  deps: Pick<S3ConnectionDeps, 'catalogCommands'>,
  tenantId: string,
  connectionId: string,
): Promise<void> {
  await deps.catalogCommands.execute({ type: 'DeleteS3Connection', tenantId, connectionId });
}

export async function listS3Connections(deps: Pick<S3ConnectionDeps, 'catalog'>, tenantId: string): Promise<S3ConnectionSummary[]> {
  return (await deps.catalog.listS3Connections(tenantId)).map(connectionSummary);
}

export async function getS3ConnectionSummary(
  deps: Pick<S3ConnectionDeps, 'catalog'>,
  tenantId: string,
  connectionId: string,
): Promise<S3ConnectionSummary> {
  const c = await deps.catalog.getS3Connection(tenantId, connectionId);
  if (!c) throw notFound(`S3 connection ${connectionId}`);
  return connectionSummary(c);
}
