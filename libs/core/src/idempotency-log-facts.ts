import { admitsRender, DEFAULT_ACCEPT_CLOCK_SKEW_MS, type LoggedKeyedRequest } from '@pressroom/domain';
import type { LogRecord } from './ports/event-log.ts';
import type { IdempotencyKeys } from './ports/idempotency-keys.ts';
import { keyedLogFactOf, rememberKeysTaken, type IdempotencyRebuildDeps, type KeyedLogFact } from './self-rebuilding-idempotency-keys.ts';

/** The log facts the Idempotency-Keys are rebuilt from, kept as a view (see createKeyedLogFacts). */
export interface KeyedLogFacts {
  /**
   * The snapshot format: it names the window and the skew, because what is dropped depends on
   * them (a snapshot written under a shorter window lacks keys a longer one holds: ignored, replayed).
   */
  readonly format: string;
  apply(record: LogRecord): void;
  /** The facts still able to decide a key (pruned as of now: see createKeyedLogFacts). */
  exportState(): KeyedLogFact[];
  importState(items: KeyedLogFact[]): void;
  isItem(value: unknown): value is KeyedLogFact;
  clear(): void;
  /** Remembers every key the facts say is taken (keysTakenOnLog), then marks the keys built. */
  markBuilt(): Promise<void>;
  /** How many facts are held (the tests). */
  size(): number;
}

/**
 * The embedded profile's Idempotency-Keys, made snapshottable. What is snapshotted is not the
 * keys store (its claims: pending ones are not on the log, and a snapshot must hold only what the
 * log holds) but the fold the keys are rebuilt from: the keyed RenderRequested and the
 * RenderWithdrawn of the render topics below the snapshot's positions. A start loads it, applies
 * the log after those positions, and runs the same rule as a whole replay (keysTakenOnLog, which
 * does not depend on the order of the records), so the keys it remembers are exactly those a
 * replay of the whole log would: a claim that was pending when the snapshot was taken is either
 * on the log after its positions (replayed: the retry gets its requestId), or not on the log at all
 * (never answered 200/202: the retry is a new attempt).
 *
 * Grows with the keyed requests of one window, not with history: a save keeps only what can still
 * decide a key as of now — requests in their window, not withdrawn, written before their
 * `acceptBy` (admitsRender), and withdrawals whose request may still be in its window (a
 * withdrawal comes after its request, from the same clock; the skew is a margin).
 */
export function createKeyedLogFacts(
  keys: IdempotencyKeys,
  deps: Pick<IdempotencyRebuildDeps, 'clock' | 'ttlMs' | 'skewMs'>,
): KeyedLogFacts {
  const skewMs = deps.skewMs ?? DEFAULT_ACCEPT_CLOCK_SKEW_MS;
  const requests = new Map<string, LoggedKeyedRequest>();
  const withdrawn = new Map<string, string>();
  const add = (fact: KeyedLogFact) => {
    if ('withdrawn' in fact) withdrawn.set(fact.withdrawn, fact.occurredAt);
    else requests.set(fact.request.requestId, fact.request);
  };
  const inWindow = (occurredAt: string, nowMs: number, margin = 0) => Date.parse(occurredAt) + deps.ttlMs + margin > nowMs;

  function prune(): void {
    const nowMs = deps.clock.now().getTime();
    for (const [id, at] of withdrawn) if (!inWindow(at, nowMs, skewMs)) withdrawn.delete(id);
    for (const [id, r] of requests) {
      if (withdrawn.has(id) || !admitsRender(r, r.writtenAtMs, skewMs) || !inWindow(r.occurredAt, nowMs)) requests.delete(id);
    }
  }

  return {
    format: `idempotency-keys/1 ttl=${deps.ttlMs} skew=${skewMs}`,
    apply(record) {
      const fact = keyedLogFactOf(record);
      if (fact) add(fact);
    },
    exportState() {
      prune();
      return [
        ...[...requests.values()].map((request) => ({ request })),
        ...[...withdrawn].map(([id, occurredAt]) => ({ withdrawn: id, occurredAt })),
      ];
    },
    importState(items) {
      for (const item of items) add(item);
    },
    isItem: isKeyedLogFact,
    clear() {
      requests.clear();
      withdrawn.clear();
    },
    async markBuilt() {
      await rememberKeysTaken(keys, requests.values(), new Set(withdrawn.keys()), deps);
      await keys.markBuilt();
    },
    size: () => requests.size + withdrawn.size,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optional = (v: unknown, type: 'string' | 'number') => v === undefined || typeof v === type;

function isKeyedLogFact(value: unknown): value is KeyedLogFact {
  if (!isRecord(value)) return false;
  if (typeof value.withdrawn === 'string') return typeof value.occurredAt === 'string';
  const r = value.request;
  return (
    isRecord(r) &&
    ['tenantId', 'requestId', 'idempotencyKey', 'occurredAt'].every((k) => typeof r[k] === 'string') &&
    optional(r.fingerprint, 'string') &&
    optional(r.acceptBy, 'string') &&
    optional(r.writtenAtMs, 'number')
  );
}
