import type { CatalogEvent } from '@pressroom/schemas';
import { PressroomError, decideCatalog, isDecision, logUnavailable, type CatalogCommand, type CatalogState } from '@pressroom/domain';
import type { Catalog } from './ports/catalog.ts';
import type { Clock, Ids } from './ports/clock.ts';
import type { EventLog, TopicNames } from './ports/event-log.ts';

export interface CatalogCommandsDeps {
  log: EventLog;
  topics: TopicNames;
  catalog: Catalog;
  ids: Ids;
  clock: Clock;
}

/** Commands that only make sure something exists: on a conflict they are decided again on the newer state. */
const ENSURE_ATTEMPTS = 5;

/**
 * Catalog writes as commands decided against the tenant's stream (`decideCatalog`): the
 * events are appended to the catalog topic (key tenantId) with the stream version they were
 * decided on, then applied to the view here, so the caller reads its own write. A write
 * decided on a stale version answers CONFLICT (409) and writes nothing.
 */
export function createCatalogCommands(deps: CatalogCommandsDeps) {
  /** The state a command needs: only what it decides on is read (keys for key commands, connections for a deletion). */
  async function stateOf(command: CatalogCommand): Promise<CatalogState> {
    const { tenantId } = command;
    const keyHash = command.type === 'IssueApiKey' ? command.keyHash : undefined;
    const needsKeys = command.type === 'RevokeApiKey' || command.type === 'RotateApiKey';
    const [streamVersion, tenant, webhookSecrets, key, apiKeys, connections] = await Promise.all([
      deps.catalog.streamVersion(tenantId),
      deps.catalog.getTenant(tenantId),
      deps.catalog.getWebhookSecrets(tenantId),
      keyHash ? deps.catalog.findApiKey(keyHash) : Promise.resolve(undefined),
      needsKeys ? deps.catalog.listApiKeys(tenantId) : Promise.resolve([]),
      command.type === 'DeleteS3Connection' ? deps.catalog.listS3Connections(tenantId) : Promise.resolve([]),
    ]);
    return {
      streamVersion,
      tenant,
      webhookSecrets,
      apiKeyHashes: key && key.tenantId === tenantId ? [key.keyHash] : [],
      apiKeys,
      connectionIds: connections.map((c) => c.connectionId),
    };
  }

  /** Decides, appends with the expected version, applies. Resolves with the events written (maybe none). */
  async function execute(command: CatalogCommand): Promise<CatalogEvent[]> {
    const state = await stateOf(command);
    const decision = decideCatalog(command, state, { eventId: deps.ids.next(), occurredAt: deps.clock.now().toISOString() });
    if (!isDecision(decision)) throw decision;
    if (decision.events.length === 0) return [];
    try {
      await deps.log.append(deps.topics.catalog, decision.events, { expectedVersion: decision.expectedVersion });
    } catch (err) {
      if (err instanceof PressroomError && err.code === 'CONFLICT') {
        throw new PressroomError('CONFLICT', `Tenant ${command.tenantId} was changed by another request; read it again and retry.`, {
          ...(err.details ? { details: err.details } : {}),
        });
      }
      throw err instanceof PressroomError ? err : logUnavailable(err);
    }
    for (const event of decision.events) await deps.catalog.apply(event);
    return decision.events;
  }

  /**
   * For commands that are safe to repeat (create the first webhook secret, register the
   * configured key at start): a conflict means someone else wrote first; decide again.
   */
  async function ensure(command: CatalogCommand): Promise<CatalogEvent[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await execute(command);
      } catch (err) {
        if (!(err instanceof PressroomError && err.code === 'CONFLICT' && attempt < ENSURE_ATTEMPTS)) throw err;
        await new Promise((r) => setTimeout(r, 20 * attempt + Math.random() * 30));
      }
    }
  }

  return { execute, ensure };
}
export type CatalogCommands = ReturnType<typeof createCatalogCommands>;
