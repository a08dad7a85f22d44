import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '@pressroom/schemas';
import { createFileEventLog } from './adapters/file-event-log.ts';
import { topicNames, type EventLog } from './ports/event-log.ts';
import { createUsageLedger, readUsage } from './usage-report.ts';

/** A request id (a UUID) per name. */
const ids = new Map<string, string>();
const idOf = (name: string) => ids.get(name) ?? (ids.set(name, randomUUID()), ids.get(name)!);

const succeeded = (request: string, tenantId: string, occurredAt: string, bytes: number): LogEvent => ({
  eventId: randomUUID(),
  type: 'RenderSucceeded',
  version: 1,
  occurredAt,
  requestId: idOf(request),
  tenantId,
  data: {
    mode: 'sync',
    artifact: { target: { kind: 'default' }, key: `${tenantId}/${idOf(request)}.pdf`, contentType: 'application/pdf', bytes },
    executionMs: 1000,
    worker: 'w',
    pages: 1,
  },
});

describe('the usage ledger (usage as a projection of the completed topic, per process)', () => {
  const dirs: string[] = [];
  const logs: EventLog[] = [];
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((l) => l.close()));
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  const openLog = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-usage-'));
    dirs.push(dir);
    const log = await createFileEventLog({ dir });
    logs.push(log);
    return log;
  };
  const range = { from: '2026-11-01', to: '2026-11-30' };

  it('answers what the whole-topic fold answers, reading each record once: later calls fold only what was appended since', async () => {
    // Given a log with outcomes of two tenants, one request with a second (redelivered) outcome
    const log = await openLog();
    const topics = topicNames('usage');
    await log.append(topics.completed, [
      succeeded('r1', 'acme', '2026-11-22T10:00:00.000Z', 100),
      succeeded('r1', 'acme', '2026-11-22T10:00:05.000Z', 100),
      succeeded('r2', 'globex', '2026-11-22T11:00:00.000Z', 40),
    ]);
    let visited = 0;
    const counting: EventLog = {
      ...log,
      readPartition: (topic, r, visit) => log.readPartition(topic, r, (rec) => (visited++, visit(rec))),
    };
    const ledger = createUsageLedger({ log: counting, topics });

    // When usage is read, then read again with nothing new
    const first = await ledger.read(range);
    expect(first).toEqual(await readUsage({ log, topics }, range));
    expect(first.map((d) => [d.tenantId, d.renders.succeeded, d.bytes])).toEqual([
      ['acme', 1, 100],
      ['globex', 1, 40],
    ]);
    expect(visited).toBe(3);
    expect(await ledger.read({ ...range, tenantId: 'acme' })).toEqual(await readUsage({ log, topics }, { ...range, tenantId: 'acme' }));
    expect(visited).toBe(3);

    // When more outcomes arrive (a late duplicate of r1 among them), then only they are read
    await log.append(topics.completed, [
      succeeded('r3', 'acme', '2026-11-23T09:00:00.000Z', 7),
      succeeded('r1', 'acme', '2026-11-23T09:00:01.000Z', 100),
    ]);
    const later = await ledger.read(range);
    expect(visited).toBe(5);
    expect(later).toEqual(await readUsage({ log, topics }, range));
    expect(later.filter((d) => d.tenantId === 'acme').map((d) => [d.date, d.renders.succeeded, d.bytes])).toEqual([
      ['2026-11-22', 1, 100],
      ['2026-11-23', 1, 7],
    ]);
  });

  it('answers copies: a later catch-up never changes an answer already handed out', async () => {
    const log = await openLog();
    const topics = topicNames('usage');
    await log.append(topics.completed, [succeeded('r1', 'acme', '2026-11-22T10:00:00.000Z', 100)]);
    const ledger = createUsageLedger({ log, topics });
    const before = await ledger.read(range);
    await log.append(topics.completed, [succeeded('r2', 'acme', '2026-11-22T10:01:00.000Z', 50)]);
    const after = await ledger.read(range);
    expect(before[0]!.renders.succeeded).toBe(1);
    expect(after[0]!.renders.succeeded).toBe(2);
  });

  it('resumes a failed read where it stopped: no record counted twice, none missed', async () => {
    const log = await openLog();
    const topics = topicNames('usage');
    await log.append(topics.completed, [
      succeeded('r1', 'acme', '2026-11-22T10:00:00.000Z', 1),
      succeeded('r2', 'acme', '2026-11-22T10:00:01.000Z', 2),
      succeeded('r3', 'acme', '2026-11-22T10:00:02.000Z', 4),
    ]);
    let failAfter = 2;
    const flaky: EventLog = {
      ...log,
      readPartition: (topic, r, visit) =>
        log.readPartition(topic, r, async (rec) => {
          if (failAfter-- === 0) throw new Error('LOG_UNAVAILABLE');
          await visit(rec);
        }),
    };
    const ledger = createUsageLedger({ log: flaky, topics });
    await expect(ledger.read(range)).rejects.toThrow('LOG_UNAVAILABLE');
    const answer = await ledger.read(range);
    expect(answer.map((d) => [d.renders.succeeded, d.bytes])).toEqual([[3, 7]]);
  });
});
