import { DEFAULT_ACCEPT_CLOCK_SKEW_MS, keysTakenOnLog, logUnavailable, type LoggedKeyedRequest } from '@pressroom/domain';
import type { Clock } from './ports/clock.ts';
import type { LogRecord } from './ports/event-log.ts';
import type { IdempotencyKeys } from './ports/idempotency-keys.ts';
import { rebuilder, replayView, type ViewRebuildDeps } from './self-rebuilding.ts';
import { renderTopics } from './self-rebuilding-views.ts';

export interface IdempotencyRebuildDeps extends ViewRebuildDeps {
  clock: Clock;
  /** The window (PRESSROOM_IDEMPOTENCY_TTL_MS): a key is remembered this long after its request. */
  ttlMs: number;
  /** Clock difference tolerated between the ingress and the log (as the render worker's, see admitsRender). */
  skewMs?: number;
  /**
   * How the keys are rebuilt when not built; default: `replayIdempotencyKeys` (the whole log).
   * The embedded profile restores them from their snapshot and the log after it instead
   * (`idempotencyKeysSnapshotView`); either way the rebuild ends with `markBuilt`.
   */
  rebuild?: () => Promise<unknown>;
}

/** What a record of the render topics tells the Idempotency-Keys: a keyed request, a withdrawal, or nothing. */
export type KeyedLogFact = { request: LoggedKeyedRequest } | { withdrawn: string; occurredAt: string };

export function keyedLogFactOf(record: LogRecord): KeyedLogFact | undefined {
  const e = record.event;
  if (e.type === 'RenderWithdrawn') return { withdrawn: e.requestId, occurredAt: e.occurredAt };
  if (e.type !== 'RenderRequested' || e.data.idempotencyKey === undefined) return undefined;
  return {
    request: {
      tenantId: e.tenantId,
      requestId: e.requestId,
      idempotencyKey: e.data.idempotencyKey,
      fingerprint: e.data.idempotencyFingerprint,
      occurredAt: e.occurredAt,
      acceptBy: e.data.acceptBy,
      writtenAtMs: record.writtenAt,
    },
  };
}

/**
 * Remembers, as accepted for the rest of its window, every key the log says is taken
 * (keysTakenOnLog over the keyed requests and withdrawals the log holds). Returns how many.
 */
export async function rememberKeysTaken(
  keys: IdempotencyKeys,
  requests: Iterable<LoggedKeyedRequest>,
  withdrawn: ReadonlySet<string>,
  deps: Pick<IdempotencyRebuildDeps, 'clock' | 'ttlMs' | 'skewMs'>,
): Promise<number> {
  const nowMs = deps.clock.now().getTime();
  const taken = keysTakenOnLog(requests, withdrawn, { nowMs, ttlMs: deps.ttlMs, skewMs: deps.skewMs ?? DEFAULT_ACCEPT_CLOCK_SKEW_MS });
  for (const k of taken) {
    await keys.remember(k.tenantId, k.key, { requestId: k.requestId, fingerprint: k.fingerprint }, k.expiresAtMs - nowMs);
  }
  return taken.length;
}

/**
 * Replays the render topics into the Idempotency-Keys and marks them built: every key a taken
 * request holds (keysTakenOnLog: RenderRequested with its key and fingerprint, minus what was
 * withdrawn) is remembered as accepted for the rest of its window. No wipe first, and a key held
 * already is left alone, so ingress processes claiming meanwhile lose nothing.
 */
export function replayIdempotencyKeys(keys: IdempotencyKeys, deps: IdempotencyRebuildDeps): Promise<number> {
  const requests: LoggedKeyedRequest[] = [];
  const withdrawn = new Set<string>();
  return replayView(keys, deps, {
    name: 'idempotency keys',
    topics: renderTopics(deps.topics),
    visit: (record) => {
      const fact = keyedLogFactOf(record);
      if (fact && 'withdrawn' in fact) withdrawn.add(fact.withdrawn);
      else if (fact) requests.push(fact.request);
    },
    finish: async () => ({ keys: await rememberKeysTaken(keys, requests, withdrawn, deps) }),
  });
}

/**
 * The Idempotency-Keys, made to rebuild themselves: a `claim` first checks the store's marker;
 * when the store is not built (a fresh Redis, a FLUSHALL, a restart without persistence, the
 * embedded profile's first keyed request after a start) the keys are rebuilt from the log before
 * the claim, so a retry with a key still in its window answers the first request's requestId
 * instead of rendering again, and a retry with another body still answers 422. Every ingress
 * process that finds the marker missing waits for a rebuild (its own, one at a time per
 * process) before claiming; replays only add keys that are free, so two processes rebuilding at
 * once, or claiming while another replays, agree: a claim still has one winner.
 */
export function selfRebuildingIdempotencyKeys(keys: IdempotencyKeys, deps: IdempotencyRebuildDeps): IdempotencyKeys {
  // A log that cannot be read now: the request is not taken (503), rather than taken twice.
  const ensureBuilt = rebuilder(keys, deps.rebuild ?? (() => replayIdempotencyKeys(keys, deps)), logUnavailable);
  return {
    async claim(tenantId, key, attempt, pendingTtlMs) {
      await ensureBuilt();
      return keys.claim(tenantId, key, attempt, pendingTtlMs);
    },
    accept: (tenantId, key, requestId, ttlMs, fingerprint, state) => keys.accept(tenantId, key, requestId, ttlMs, fingerprint, state),
    release: (tenantId, key, requestId) => keys.release(tenantId, key, requestId),
    get: (tenantId, key) => keys.get(tenantId, key),
    remember: (tenantId, key, claim, ttlMs) => keys.remember(tenantId, key, claim, ttlMs),
    isBuilt: () => keys.isBuilt(),
    markBuilt: () => keys.markBuilt(),
    warmUp: async () => void (await ensureBuilt()),
    close: () => keys.close(),
  };
}
