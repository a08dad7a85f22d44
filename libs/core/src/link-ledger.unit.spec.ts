import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogEvent } from '@pressroom/schemas';
import { createLinkLedger, type LinkDropReason } from './link-ledger.ts';
import { createEventFactory } from './event-factory.ts';
import { topicNames, type EventLog } from './ports/event-log.ts';
import { silentLogger, type Logger } from './ports/logger.ts';

const topics = topicNames('t');
const at = new Date('2026-11-23T10:00:00.000Z');
let n = 0;
const event = createEventFactory({ clock: { now: () => at }, ids: { next: () => `id-${++n}` } });
const link = (requestId: string) => ({
  requestId,
  tenantId: 't1',
  where: 'status' as const,
  file: 'result' as const,
  expiresInSeconds: 600,
});

/** Only `append` is used by the ledger: a log that records (or refuses, or holds) appends. */
function fakeLog(opts: { fail?: boolean; hold?: Promise<void> } = {}) {
  const appends: { topic: string; events: LogEvent[] }[] = [];
  const log = {
    async append(topic: string, events: LogEvent[]) {
      if (opts.hold) await opts.hold;
      if (opts.fail) throw new Error('broker down');
      appends.push({ topic, events });
      return [];
    },
  } as unknown as EventLog;
  return { log, appends };
}

function ledgerOn(log: EventLog, extra: { maxBuffered?: number; logger?: Logger } = {}) {
  const drops: [LinkDropReason, number][] = [];
  const ledger = createLinkLedger({
    log,
    topics,
    event,
    logger: extra.logger ?? silentLogger,
    onDropped: (r, c) => drops.push([r, c]),
    ...(extra.maxBuffered !== undefined ? { maxBuffered: extra.maxBuffered } : {}),
  });
  return { ledger, drops };
}

describe('the signed-link ledger (LinkIssued, off the request path)', () => {
  it('issued() appends nothing itself; a burst goes to the webhooks topic in one append, with expiresAt and never a URL', async () => {
    const { log, appends } = fakeLog();
    const { ledger } = ledgerOn(log);
    ledger.issued(link('r1'));
    ledger.issued({ ...link('r2'), where: 'sync', file: 'debug' });
    expect(appends).toEqual([]);
    await ledger.flush();
    expect(appends).toHaveLength(1);
    expect(appends[0]!.topic).toBe(topics.webhooks);
    expect(appends[0]!.events.map((e) => [e.type, 'requestId' in e ? e.requestId : '', e.tenantId, e.data])).toEqual([
      ['LinkIssued', 'r1', 't1', { where: 'status', file: 'result', expiresAt: '2026-11-23T10:10:00.000Z' }],
      ['LinkIssued', 'r2', 't1', { where: 'sync', file: 'debug', expiresAt: '2026-11-23T10:10:00.000Z' }],
    ]);
  });

  it('a failed append is logged and counted, and never thrown to whoever issued the link', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (msg: string) => void warnings.push(msg) };
    const { log } = fakeLog({ fail: true });
    const { ledger, drops } = ledgerOn(log, { logger });
    expect(() => ledger.issued(link('r1'))).not.toThrow();
    await ledger.flush();
    expect(drops).toEqual([['append_failed', 1]]);
    expect(warnings).toHaveLength(1);
  });

  it('the buffer is bounded while the log is slow: what does not fit is dropped and counted', async () => {
    let release!: () => void;
    const { log, appends } = fakeLog({ hold: new Promise<void>((r) => (release = r)) });
    const { ledger, drops } = ledgerOn(log, { maxBuffered: 2 });
    ledger.issued(link('r1'));
    await new Promise((r) => setImmediate(r)); // r1 is now in an append held by the log
    ledger.issued(link('r2'));
    ledger.issued(link('r3'));
    ledger.issued(link('r4'));
    expect(drops).toEqual([['buffer_full', 1]]);
    release();
    await ledger.flush();
    expect(appends.flatMap((a) => a.events.map((e) => ('requestId' in e ? e.requestId : '')))).toEqual(['r1', 'r2', 'r3']);
  });

  it('close() flushes what is buffered; links after it are not recorded', async () => {
    const { log, appends } = fakeLog();
    const { ledger } = ledgerOn(log);
    ledger.issued(link('r1'));
    await ledger.close();
    ledger.issued(link('r2'));
    await ledger.flush();
    expect(appends.flatMap((a) => a.events.map((e) => ('requestId' in e ? e.requestId : '')))).toEqual(['r1']);
  });
});

describe('the signed-link ledger, gathering', () => {
  afterEach(() => void vi.useRealTimers());

  it('holds the first link of a batch gatherMs for others, then appends them all at once; close does not wait for it', async () => {
    vi.useFakeTimers();
    const { log, appends } = fakeLog();
    const ledger = createLinkLedger({ log, topics, event, logger: silentLogger, gatherMs: 100 });
    ledger.issued(link('g1'));
    await vi.advanceTimersByTimeAsync(60);
    ledger.issued(link('g2'));
    await vi.advanceTimersByTimeAsync(39);
    expect(appends).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(appends.map((a) => a.events.map((e) => ('requestId' in e ? e.requestId : '')))).toEqual([['g1', 'g2']]);
    ledger.issued(link('g3'));
    await ledger.close();
    expect(appends.map((a) => a.events.length)).toEqual([2, 1]);
  });
});
