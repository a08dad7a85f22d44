import type { Plan, RemovalReason } from '@pressroom/schemas';
import {
  expiredRenders,
  isTerminal,
  renderOfObjectKey,
  tooYoungToExpire,
  type RetentionPolicy,
  type StoredObject,
} from '@pressroom/domain';
import type { Catalog } from './ports/catalog.ts';
import type { Clock } from './ports/clock.ts';
import type { EventLog, TopicNames } from './ports/event-log.ts';
import { silentLogger, type Logger } from './ports/logger.ts';
import type { ObjectStore } from './ports/object-store.ts';
import type { PayloadCopies } from './ports/payload-copies.ts';
import type { StatusView } from './ports/status-view.ts';
import type { EventFactory } from './event-factory.ts';

export interface RenderRemovalDeps {
  /** Our own storage (never a tenant's S3 connection: we do not remove files from a caller's bucket). */
  own: ObjectStore;
  catalog: Catalog;
  log: EventLog;
  topics: TopicNames;
  event: EventFactory;
  clock: Clock;
  /** The process name recorded on ArtifactRemoved. */
  by: string;
  /**
   * Whether a render has its outcome, for a render of which only the stored payload is left past
   * its retention (`ExpiredRender.payloadOnly`). Without it such a render is kept: its payload
   * may be what a queued request is still to be rendered from.
   */
  view?: Pick<StatusView, 'get'>;
  /** The payloads' copies (distributed profile): a removed payload's copy goes before its object, so no render takes it afterwards. */
  payloadCopies?: Pick<PayloadCopies, 'remove'>;
  logger?: Logger;
}

/**
 * Removing a render's files from our own storage: all of them (file, debug report, tool
 * outputs), found by listing the render's key prefix. The ArtifactRemoved event goes on the log
 * first, then the files go: a failed delete is found and done again by the next sweep (and its
 * event appended again, which the status view ignores), never a file gone without its event.
 */
export function createRenderRemoval(deps: RenderRemovalDeps) {
  const logger = deps.logger ?? silentLogger;

  async function removeKeys(tenantId: string, requestId: string, keys: string[], reason: RemovalReason): Promise<void> {
    await deps.log.append(deps.topics.completed, [deps.event('ArtifactRemoved', { tenantId, requestId }, { reason, keys, by: deps.by })]);
    await deps.payloadCopies?.remove(keys);
    for (const key of keys) await deps.own.delete(key);
  }

  async function keysOf(tenantId: string, requestId: string): Promise<string[]> {
    const keys: string[] = [];
    if (!deps.own.list) return keys;
    for await (const o of deps.own.list(`${tenantId}/${requestId}`)) {
      if (renderOfObjectKey(o.key)?.requestId === requestId) keys.push(o.key);
    }
    return keys.sort();
  }

  async function outcomeKnown(tenantId: string, requestId: string): Promise<boolean> {
    const entry = await deps.view?.get(requestId);
    return entry?.tenantId === tenantId && isTerminal(entry);
  }

  return {
    /** `DELETE /v1/pdf/{requestId}`: the render's files go now, recorded as DELETED. */
    async remove(tenantId: string, requestId: string): Promise<string[]> {
      const keys = await keysOf(tenantId, requestId);
      await removeKeys(tenantId, requestId, keys, 'DELETED');
      return keys;
    },

    /**
     * One sweep: lists our own storage, decides which renders outlived their tenant's plan
     * (`expiredRenders`, pure) and removes them as EXPIRED. Answers how many renders it removed.
     */
    async sweep(policy: RetentionPolicy): Promise<number> {
      if (!deps.own.list || Object.keys(policy).length === 0) return 0;
      const now = deps.clock.now();
      // Objects of renders surely too young to expire are left out unread, so a sweep's work and
      // memory follow what may have expired, not everything kept.
      const objects: StoredObject[] = [];
      for await (const o of deps.own.list('', tooYoungToExpire({ now, policy }))) objects.push(o);
      const plans = new Map<string, Plan | undefined>();
      for (const o of objects) {
        const render = renderOfObjectKey(o.key);
        if (render && !plans.has(render.tenantId)) plans.set(render.tenantId, (await deps.catalog.getTenant(render.tenantId))?.plan);
      }
      const expired = expiredRenders(objects, { now, policy, planOf: (t) => plans.get(t) });
      let removed = 0;
      for (const r of expired) {
        // Waiting or rendering: its payload stays until the render has an outcome (then its own
        // files start the retention over, or, failed or withdrawn, it goes at the next sweep).
        if (r.payloadOnly && !(await outcomeKnown(r.tenantId, r.requestId))) continue;
        await removeKeys(r.tenantId, r.requestId, r.keys, 'EXPIRED');
        logger.info('render files expired', { tenantId: r.tenantId, requestId: r.requestId, files: r.keys.length });
        removed++;
      }
      return removed;
    },
  };
}
export type RenderRemoval = ReturnType<typeof createRenderRemoval>;

/**
 * Sweeps every `intervalMs` until stopped. A failed sweep (storage or log unreachable) is
 * logged and the next one tries again; sweeps never overlap.
 */
export function startRetentionSweeper(removal: RenderRemoval, opts: { policy: RetentionPolicy; intervalMs: number; logger?: Logger }) {
  const logger = opts.logger ?? silentLogger;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = removal
      .sweep(opts.policy)
      .catch((err: unknown) => logger.warn('retention sweep failed; the next one tries again', { err }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.intervalMs);
      });
  };
  if (Object.keys(opts.policy).length > 0) timer = setTimeout(tick, opts.intervalMs);
  return {
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
