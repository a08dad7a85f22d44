import { randomUUID } from 'node:crypto';
import type { EventLog, TopicNames } from '@pressroom/core';
import type { RenderAttemptStarted, RenderRequested, RenderSucceeded } from '@pressroom/schemas';

/**
 * Writes `count` finished renders to a log as the service would have (RenderRequested,
 * RenderAttemptStarted, RenderSucceeded), without rendering: history for start-up tests and
 * the start-up benchmark. Returns their requestIds.
 */
export async function writePastRenders(log: EventLog, topics: TopicNames, count: number, tenantId = 'tenant-history'): Promise<string[]> {
  const ids: string[] = [];
  const batch = 2_000;
  for (let done = 0; done < count; done += batch) {
    const requested: RenderRequested[] = [];
    const finished: (RenderAttemptStarted | RenderSucceeded)[] = [];
    for (let i = done; i < Math.min(count, done + batch); i++) {
      const requestId = randomUUID();
      ids.push(requestId);
      const at = new Date(Date.UTC(2030, 0, 1) + i * 1000).toISOString();
      const base = { version: 1 as const, occurredAt: at, requestId, tenantId };
      requested.push({
        ...base,
        eventId: randomUUID(),
        type: 'RenderRequested',
        data: { mode: 'async', source: { kind: 'html', html: `<p>render ${i}</p>` }, output: 'pdf', storage: { kind: 'default' } },
      });
      finished.push({ ...base, eventId: randomUUID(), type: 'RenderAttemptStarted', data: { attempt: 1, worker: 'history' } });
      finished.push({
        ...base,
        eventId: randomUUID(),
        type: 'RenderSucceeded',
        data: {
          mode: 'async',
          artifact: { target: { kind: 'default' }, key: `${tenantId}/${requestId}.pdf`, contentType: 'application/pdf', bytes: 1234 },
          executionMs: 120,
          worker: 'history',
        },
      });
    }
    await log.append(topics.requestedAsync, requested);
    await log.append(topics.completed, finished);
  }
  return ids;
}
