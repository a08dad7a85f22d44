import { describe, expect, it } from 'vitest';
import type { EventLog, ReadAllOptions } from '@pressroom/core';
import { topicNames } from '@pressroom/core';
import { ID_CLOCK_SKEW_MS, requestIdTime } from '@pressroom/domain';
import { createHistory, historyReadStart } from './history.ts';

/** A log that holds nothing and notes how each read was asked for. */
function notingLog() {
  const reads: (ReadAllOptions | undefined)[] = [];
  const log = {
    readAll: async (_topics: string[], _visit: unknown, opts?: ReadAllOptions) => (reads.push(opts), 0),
  } as unknown as EventLog;
  return { log, reads };
}

describe('history reads start where the history begins', () => {
  it('reads a render from its id’s time less the clocks’ margin, and an id without a time from the beginning', async () => {
    const { log, reads } = notingLog();
    const history = createHistory({ log, topics: topicNames('t') });
    const v7 = '019af0f3-5c1a-7b3e-8a2f-0123456789ab';
    expect(await history.ofRequest('tenant-a', v7)).toBeUndefined();
    expect(await history.ofRequest('tenant-a', '3b241101-e2bb-4255-8caf-4136c566a962')).toBeUndefined();
    expect(reads).toEqual([{ sinceMs: requestIdTime(v7)! - ID_CLOCK_SKEW_MS }, {}]);
  });

  it('reads a listing from its `from` less the margin', async () => {
    const { log, reads } = notingLog();
    const history = createHistory({ log, topics: topicNames('t') });
    const fromMs = Date.parse('2026-12-01T00:00:00Z');
    expect(await history.list('tenant-a', { fromMs, toMs: fromMs + 86_400_000, limit: 10 })).toEqual({ renders: [] });
    expect(reads).toEqual([{ sinceMs: fromMs - ID_CLOCK_SKEW_MS }]);
    expect(historyReadStart(undefined)).toEqual({});
  });
});
