import { randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventLogContract, waitFor } from '@pressroom/testing';
import type { RenderRequested, WebhookDelivered } from '@pressroom/schemas';
import type { EventLog, Subscription } from '../ports/event-log.ts';
import { silentLogger } from '../ports/logger.ts';
import { createFileEventLog, LogLockedError } from './file-event-log.ts';
import { encodeLine } from './file-event-log-topic.ts';
import { GroupOffsets } from './file-event-log-groups.ts';

const suiteDir = await mkdtemp(join(tmpdir(), 'pressroom-file-log-contract-'));
afterAll(() => rm(suiteDir, { recursive: true, force: true }));

// Every instance opens the same directory: a "new instance" is a restarted process.
eventLogContract('file', async () => {
  const log = await createFileEventLog({ dir: suiteDir });
  return { log, topics: (suffix) => `contract.${suffix}`, cleanup: () => log.close() };
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function event(seq: number, requestId: string = randomUUID()): WebhookDelivered {
  return {
    eventId: randomUUID(),
    type: 'WebhookDelivered',
    version: 1,
    occurredAt: new Date().toISOString(),
    requestId,
    tenantId: 'tenant-file',
    data: { url: 'https://example.test/hook', statusCode: 200, durationMs: seq, renderStatus: 'SUCCESS' },
  };
}

describe('file event log', () => {
  const dirs: string[] = [];
  const logs: EventLog[] = [];
  const subs: Subscription[] = [];
  const freshDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-file-log-'));
    dirs.push(dir);
    return dir;
  };
  const openLog = async (dir: string) => {
    const log = await createFileEventLog({ dir });
    logs.push(log);
    return log;
  };
  afterEach(async () => {
    await Promise.allSettled(subs.splice(0).map((s) => s.stop()));
    await Promise.allSettled(logs.splice(0).map((l) => l.close()));
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it('reports the lag of each consuming group: records after its committed position', async () => {
    const log = await openLog(await freshDir());
    await log.append('t.lag', [event(1), event(2), event(3)]);
    const release = deferred();
    let handled = 0;
    subs.push(
      await log.consume({
        group: 'g.lag',
        topics: ['t.lag'],
        handle: async () => {
          handled++;
          if (handled === 2) await release.promise; // the second record holds the position
        },
      }),
    );
    await waitFor(() => handled === 2, { timeoutMs: 5_000, description: 'two records handled' });
    expect(await log.lag?.()).toEqual([{ group: 'g.lag', topic: 't.lag', partition: 0, lag: 2 }]);
    release.resolve();
    await waitFor(async () => (await log.lag?.())?.[0]?.lag === 0, { timeoutMs: 5_000, description: 'the lag to drain' });
  });

  const readSeqs = async (log: EventLog, topic: string) => {
    const seqs: number[] = [];
    await log.readAll([topic], (r) => void seqs.push((r.event as WebhookDelivered).data.durationMs));
    return seqs;
  };

  it('cuts a torn last line at open and keeps appending after the intact records', async () => {
    // Given three durable records and a half-written fourth line (a crash mid-write)
    const dir = await freshDir();
    const first = await openLog(dir);
    await first.append('t', [event(0), event(1), event(2)]);
    await first.close();
    const file = join(dir, 'topics', 't.log');
    const intactSize = (await stat(file)).size;
    const torn = encodeLine(3, event(3));
    await appendFile(file, torn.subarray(0, torn.length - 10));
    // When the log opens again
    const second = await openLog(dir);
    // Then the torn bytes are gone and the next append takes offset 3
    expect((await stat(file)).size).toBe(intactSize);
    expect(await readSeqs(second, 't')).toEqual([0, 1, 2]);
    await second.append('t', [event(4)]);
    const offsets: string[] = [];
    await second.readAll(['t'], (r) => void offsets.push(r.offset));
    expect(offsets).toEqual(['0', '1', '2', '3']);
  });

  it('cuts from a complete line whose checksum does not match', async () => {
    const dir = await freshDir();
    const first = await openLog(dir);
    await first.append('t', [event(0), event(1)]);
    await first.close();
    // Given a last line damaged in place (same length, one byte changed)
    const file = join(dir, 'topics', 't.log');
    const text = await readFile(file, 'utf8');
    const lastLine = text.lastIndexOf('"durationMs":1');
    await writeFile(file, `${text.slice(0, lastLine)}"durationMs":7${text.slice(lastLine + 14)}`);
    // Then only the first record survives
    const second = await openLog(dir);
    expect(await readSeqs(second, 't')).toEqual([0]);
  });

  it('refuses a directory that another live process holds', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'LOCK'), '1'); // pid 1 is alive in every container and host
    await expect(createFileEventLog({ dir })).rejects.toBeInstanceOf(LogLockedError);
  });

  it('takes over a lock left by a dead process', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'LOCK'), '999999999');
    const log = await openLog(dir);
    await log.append('t', [event(0)]);
    expect(await readSeqs(log, 't')).toEqual([0]);
  });

  it('takes over a lock whose pid now belongs to another process (reused after a crash)', async () => {
    // Given a lock naming a live pid (1) but a start time that process does not have
    const dir = await freshDir();
    await writeFile(join(dir, 'LOCK'), '1 999999999999');
    // Then the log opens: the process that wrote the lock is gone
    const log = await openLog(dir);
    await log.append('t', [event(0)]);
    expect(await readSeqs(log, 't')).toEqual([0]);
  });

  it('refuses a lock naming a live process with its own start time', async () => {
    const dir = await freshDir();
    const start = (await readFile('/proc/1/stat', 'utf8')).split(') ')[1]!.split(' ')[19];
    await writeFile(join(dir, 'LOCK'), `1 ${start}`);
    await expect(createFileEventLog({ dir })).rejects.toBeInstanceOf(LogLockedError);
  });

  it('runs up to `concurrency` handlers at once, one at a time per key', async () => {
    const log = await openLog(await freshDir());
    const shared = randomUUID();
    await log.append('t', [event(0), event(1), event(2), event(3), event(4, shared), event(5, shared)]);
    // Given a consumer with concurrency 3 whose handlers wait for the test
    const gate = deferred();
    let inFlight = 0;
    let maxInFlight = 0;
    const sharedRunning: number[] = [];
    let sharedActive = 0;
    let sharedOverlap = false;
    const handled: number[] = [];
    subs.push(
      await log.consume({
        group: 'g',
        topics: ['t'],
        concurrency: 3,
        handle: async (r) => {
          const seq = (r.event as WebhookDelivered).data.durationMs;
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          if (r.key === shared) {
            sharedRunning.push(seq);
            sharedActive += 1;
            sharedOverlap ||= sharedActive > 1;
          }
          await gate.promise;
          if (r.key === shared) sharedActive -= 1;
          inFlight -= 1;
          handled.push(seq);
        },
      }),
    );
    await waitFor(() => inFlight === 3, { timeoutMs: 5_000, description: 'three handlers running' });
    gate.resolve();
    await waitFor(() => handled.length === 6, { timeoutMs: 5_000, description: 'all handled' });
    expect(maxInFlight).toBe(3);
    expect(sharedRunning).toEqual([4, 5]);
    expect(sharedOverlap).toBe(false);
  });

  it('wakes a waiting consumer when an append lands, and starts at the end without fromBeginning', async () => {
    const log = await openLog(await freshDir());
    await log.append('t', [event(0)]);
    const handled: number[] = [];
    subs.push(
      await log.consume({
        group: 'late',
        topics: ['t'],
        fromBeginning: false,
        handle: async (r) => void handled.push((r.event as WebhookDelivered).data.durationMs),
      }),
    );
    await log.append('t', [event(1)]);
    await waitFor(() => handled.length === 1, { timeoutMs: 5_000, description: 'the new record' });
    expect(handled).toEqual([1]);
  });

  it('reads records larger than one read batch', async () => {
    // Given three 3 MB RenderRequested events (a read holds about 4 MB)
    const log = await openLog(await freshDir());
    const big = (n: number): RenderRequested => ({
      eventId: randomUUID(),
      type: 'RenderRequested',
      version: 1,
      occurredAt: new Date().toISOString(),
      requestId: randomUUID(),
      tenantId: 'tenant-file',
      data: { mode: 'async', source: { kind: 'html', html: String(n).repeat(3 << 20) }, output: 'pdf', storage: { kind: 'default' } },
    });
    await log.append('big', [big(1), big(2), big(3)]);
    // Then each is read back whole
    const sizes: number[] = [];
    await log.readAll(['big'], (r) => {
      const source = (r.event as RenderRequested).data.source;
      sizes.push(source.kind === 'html' ? source.html.length : 0);
    });
    expect(sizes).toEqual([3 << 20, 3 << 20, 3 << 20]);
  });

  it('commits the contiguous-completed watermark on stop', async () => {
    const dir = await freshDir();
    const log = await openLog(dir);
    await log.append('t', [event(0), event(1), event(2)]);
    // Given records 0 and 2 handled while 1 is still running when stop is called
    const slow = deferred();
    const handled: number[] = [];
    const sub = await log.consume({
      group: 'wm',
      topics: ['t'],
      concurrency: 3,
      handle: async (r) => {
        const seq = (r.event as WebhookDelivered).data.durationMs;
        if (seq === 1) await slow.promise;
        handled.push(seq);
      },
    });
    await waitFor(() => handled.length === 2, { timeoutMs: 5_000, description: '0 and 2 handled' });
    const stopping = sub.stop();
    slow.resolve();
    await stopping;
    // Then stop waited for 1, and the group file says "next is 3"
    expect(handled.sort()).toEqual([0, 1, 2]);
    const groupFile = JSON.parse(await readFile(join(dir, 'groups', 'wm.json'), 'utf8')) as { offsets: Record<string, string> };
    expect(groupFile.offsets).toEqual({ t: '3' });
  });

  it('coalesces a burst of commits into one write of the latest positions, which flush puts on disk at once', async () => {
    const dir = await freshDir();
    const offsets = await GroupOffsets.load(dir, 'burst', silentLogger);
    // Given many commits in a burst (a render passes several records through every group)
    for (let next = 1; next <= 50; next++) offsets.commit('t', next);
    offsets.commit('u', 7);
    // When flushed (as close and stop do), without waiting for the coalescing window
    await offsets.flush();
    // Then the file holds the latest position of every topic, and a reload reads them
    const file = JSON.parse(await readFile(join(dir, 'burst.json'), 'utf8')) as { offsets: Record<string, string> };
    expect(file.offsets).toEqual({ t: '50', u: '7' });
    const reloaded = await GroupOffsets.load(dir, 'burst', silentLogger);
    expect([reloaded.get('t'), reloaded.get('u')]).toEqual([50, 7]);
  });
});
