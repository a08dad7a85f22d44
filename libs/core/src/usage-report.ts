import type { UsageDay } from '@pressroom/schemas';
import { emptyUsage, foldUsage, usageBetween } from '@pressroom/domain';
import type { EventLog, TopicNames } from './ports/event-log.ts';

/**
 * Usage by tenant and day, folded (`foldUsage`, pure) from the render outcomes on the completed
 * topic: the log is the record, so the answer is always the log's and needs no view to rebuild.
 * Every call reads the completed topic once (its cost grows with the log, like the history);
 * for billing runs and support, not for polling.
 */
export async function readUsage(
  deps: { log: EventLog; topics: TopicNames },
  range: { from: string; to: string; tenantId?: string },
): Promise<UsageDay[]> {
  const usage = emptyUsage();
  await deps.log.readAll([deps.topics.completed], (record) => {
    foldUsage(usage, record.event);
  });
  return usageBetween(usage, range);
}
