import type { CatalogEvent } from '@pressroom/schemas';
import { PressroomError } from '@pressroom/domain';
import type { LegacyCatalogRecords } from './adapters/file-catalog.ts';
import type { Catalog } from './ports/catalog.ts';
import type { Ids } from './ports/clock.ts';
import type { EventLog, TopicNames } from './ports/event-log.ts';

export interface ImportResult {
  tenantsImported: number;
  tenantsSkipped: number;
  events: number;
}

/**
 * Writes a catalog kept outside the log (the embedded files, or the Redis records of before)
 * as catalog events: one stream per tenant, each fact with its original time. A tenant whose
 * stream exists already is skipped (its stream is appended expecting version 0), so the
 * import is safe to run again and never doubles a fact. Records of tenants that do not exist
 * are ignored (they could never authenticate).
 */
export async function importLegacyCatalog(
  records: LegacyCatalogRecords,
  deps: { log: EventLog; topics: TopicNames; ids: Ids; catalog: Catalog },
): Promise<ImportResult> {
  const result: ImportResult = { tenantsImported: 0, tenantsSkipped: 0, events: 0 };
  for (const tenant of [...records.tenants].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
    const events: CatalogEvent[] = [];
    const base = () => ({ eventId: deps.ids.next(), version: 1 as const, tenantId: tenant.tenantId, sequence: events.length + 1 });
    events.push({ ...base(), type: 'TenantCreated', occurredAt: tenant.createdAt, data: { name: tenant.name, plan: tenant.plan } });
    for (const k of records.apiKeys.filter((x) => x.tenantId === tenant.tenantId)) {
      events.push({ ...base(), type: 'ApiKeyIssued', occurredAt: k.createdAt, data: { keyHash: k.keyHash, label: k.label } });
    }
    for (const c of records.connections.filter((x) => x.tenantId === tenant.tenantId)) {
      const data = {
        connectionId: c.connectionId,
        bucket: c.bucket,
        region: c.region,
        ...(c.endpoint !== undefined ? { endpoint: c.endpoint } : {}),
        ...(c.forcePathStyle !== undefined ? { forcePathStyle: c.forcePathStyle } : {}),
        ...(c.accessKeyId !== undefined ? { accessKeyId: c.accessKeyId } : {}),
        ...(c.sealedSecretAccessKey !== undefined ? { sealedSecretAccessKey: c.sealedSecretAccessKey } : {}),
      };
      events.push({ ...base(), type: 'S3ConnectionRegistered', occurredAt: c.createdAt, data });
    }
    const w = records.webhookSecrets.find((x) => x.tenantId === tenant.tenantId);
    if (w?.previous) {
      events.push({
        ...base(),
        type: 'WebhookSecretCreated',
        occurredAt: w.current.createdAt,
        data: { sealedSecret: w.previous.sealedSecret },
      });
      events.push({
        ...base(),
        type: 'WebhookSecretRotated',
        occurredAt: w.current.createdAt,
        data: {
          sealedSecret: w.current.sealedSecret,
          previousSealedSecret: w.previous.sealedSecret,
          previousExpiresAt: w.previous.expiresAt,
        },
      });
    } else if (w) {
      events.push({
        ...base(),
        type: 'WebhookSecretCreated',
        occurredAt: w.current.createdAt,
        data: { sealedSecret: w.current.sealedSecret },
      });
    }
    try {
      await deps.log.append(deps.topics.catalog, events, { expectedVersion: 0 });
    } catch (err) {
      if (err instanceof PressroomError && err.code === 'CONFLICT') {
        result.tenantsSkipped += 1;
        continue;
      }
      throw err;
    }
    for (const e of events) await deps.catalog.apply(e);
    result.tenantsImported += 1;
    result.events += events.length;
  }
  return result;
}
