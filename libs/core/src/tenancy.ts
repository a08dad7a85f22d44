import type { Http } from '@pressroom/schemas';
import type { Plan } from '@pressroom/schemas';
import { PressroomError, notFound } from '@pressroom/domain';
import { displayPrefixOf, hashApiKey } from './api-keys.ts';
import type { CatalogCommands } from './catalog-commands.ts';
import { createApiKey } from './key-management.ts';
import type { Catalog, Tenant } from './ports/catalog.ts';
import type { Clock, Ids } from './ports/clock.ts';

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

/** Returns the key in clear once (with both scopes); only its hash is on the log and in the view. */
export async function issueApiKey(deps: Deps, tenantId: string, label: string): Promise<string> {
  return (await createApiKey(deps, tenantId, { label })).apiKey;
}

/** The operator moves a tenant to another plan (TenantPlanChanged; nothing when it has that plan). */
export async function changePlan(deps: Deps, tenantId: string, plan: Plan): Promise<Tenant> {
  await deps.catalogCommands.execute({ type: 'ChangePlan', tenantId, plan });
  const tenant = await deps.catalog.getTenant(tenantId);
  if (!tenant) throw notFound(`Tenant ${tenantId}`);
  return tenant;
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
    const prefix = displayPrefixOf(opts.apiKey);
    await deps.catalogCommands.ensure({
      type: 'IssueApiKey',
      tenantId: 'default',
      keyHash: hashApiKey(opts.apiKey),
      label: 'PRESSROOM_API_KEY',
      ...(prefix ? { prefix } : {}),
    });
    return {};
  }
  if (opts.createDevelopmentKey && !existing) return { developmentKey: await issueApiKey(deps, 'default', 'development') };
  return {};
}
