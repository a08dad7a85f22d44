import type { UsageDay } from '@pressroom/schemas';
import { emptyUsage, foldUsage, forgetCounted, usageBetween, type UsageFold } from '@pressroom/domain';
import type { EventLog, TopicNames } from './ports/event-log.ts';

type UsageRange = { from: string; to: string; tenantId?: string };

/**
 * Usage by tenant and day, folded (`foldUsage`, pure) from the render outcomes on the completed
 * topic: the log is the record, so the answer is always the log's and needs no view to rebuild.
 * This reads the whole completed topic: for a one-shot process (`ops usage` on the data dir).
 * A long-running process answers from a `UsageLedger`, which reads each record once.
 */
export async function readUsage(deps: { log: EventLog; topics: TopicNames }, range: UsageRange): Promise<UsageDay[]> {
  const usage = emptyUsage();
  await deps.log.readAll([deps.topics.completed], (record) => {
    foldUsage(usage, record.event);
  });
  return usageBetween(usage, range);
}

/** Usage kept up to date in one process (the ingress): see `createUsageLedger`. */
export interface UsageLedger {
  /** The usage of `range` as of the log's end at the call: catches up first, then answers. */
  read(range: UsageRange): Promise<UsageDay[]>;
}

/** Records folded between two prunings of a partition's counted requests. */
const PRUNE_EVERY = 4096;

/**
 * Usage as a projection of the completed topic held in memory: per tenant and day counters
 * (`foldUsage`), and per partition the next offset to fold. Each `read` asks the log for its
 * partitions' ends and folds only the records after what it folded before (`readPartition`), so
 * the first call of a process reads the topic once and later calls read what was appended since,
 * not the whole topic each time. Like the other views it is rebuilt from the log (a new process
 * starts from the beginning), and the answer is the log's as of the call.
 *
 * A request counts once: its first outcome. Its outcomes share a partition (the topic is keyed by
 * requestId), so each partition remembers the requests it counted, forgetting those older than
 * `USAGE_DEDUP_WINDOW_MS` before its newest outcome: memory is a week of request ids, not all.
 * The position moves record by record, so a read that fails half way resumes where it stopped
 * and never counts a record twice. Reads are serialized; concurrent callers wait their turn.
 */
export function createUsageLedger(deps: { log: EventLog; topics: TopicNames }): UsageLedger {
  const topic = deps.topics.completed;
  const days: UsageFold['days'] = new Map();
  const partitions = new Map<number, { next: bigint; counted: UsageFold['counted']; newestMs: number; sincePrune: number }>();
  let turn: Promise<unknown> = Promise.resolve();

  const catchUp = async () => {
    for (const { partition, end } of await deps.log.endOffsets(topic)) {
      const state = partitions.get(partition) ?? { next: 0n, counted: new Map<string, number>(), newestMs: 0, sincePrune: 0 };
      partitions.set(partition, state);
      const last = BigInt(end) - 1n;
      if (last < state.next) continue;
      const fold: UsageFold = { days, counted: state.counted };
      await deps.log.readPartition(topic, { partition, from: String(state.next), through: String(last) }, (record) => {
        const offset = BigInt(record.offset);
        if (offset < state.next) return;
        foldUsage(fold, record.event);
        state.newestMs = Math.max(state.newestMs, Date.parse(record.event.occurredAt) || 0);
        state.next = offset + 1n;
        if (++state.sincePrune >= PRUNE_EVERY) {
          state.sincePrune = 0;
          forgetCounted(state.counted, state.newestMs);
        }
      });
      state.next = last + 1n;
      forgetCounted(state.counted, state.newestMs);
    }
  };

  return {
    async read(range) {
      const mine = turn.then(catchUp);
      turn = mine.catch(() => undefined);
      await mine;
      // Copies: a later catch-up goes on adding to the live counters.
      return usageBetween({ days, counted: new Map() }, range).map((d) => ({ ...d, renders: { ...d.renders } }));
    },
  };
}
