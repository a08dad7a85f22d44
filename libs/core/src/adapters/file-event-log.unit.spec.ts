import { randomUUID } from 'node:crypto';
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventLogContract, sequencedEvent, waitFor } from '@pressroom/testing';
import type { RenderRequested, WebhookDelivered } from '@pressroom/schemas';
import type { EventLog, Subscription } from '../ports/event-log.ts';
import { silentLogger } from '../ports/logger.ts';
import { createFileEventLog, LogLockedError } from './file-event-log.ts';
import { encodeLine, LogCorruptionError } from './file-event-log-topic.ts';
import { GroupOffsets } from './file-event-log-groups.ts';

const suiteDir = await mkdtemp(join(tmpdir(), 'pressroom-file-log-contract-'));
afterAll(() => rm(suiteDir, { recursive: true, force: true }));

// Every instance opens the same directory: a "new instance" is a restarted process.
eventLogContract('file', async () => {
  const log = await createFileEventLog({ dir: suiteDir });
  return { log, topics: (suffix) => `contract.${suffix}`, cleanup: () => log.close() };
});

// The same with a segment every few records and a checkpoint every two: reads and consumers cross
// segment boundaries, and every reopen goes through the indexes.
const smallSegmentsDir = await mkdtemp(join(tmpdir(), 'pressroom-file-log-segments-contract-'));
afterAll(() => rm(smallSegmentsDir, { recursive: true, force: true }));
eventLogContract('file, small segments', async () => {
  const log = await createFileEventLog({ dir: smallSegmentsDir, topicOptions: { segmentBytes: 1000, checkpointRecords: 2 } });
  return { log, topics: (suffix) => `contract.${suffix}`, cleanup: () => log.close() };
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const event = (seq: number, requestId?: string) => sequencedEvent(seq, requestId, 'tenant-file');

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

  it('reads the latest records from memory as the file holds them, each reader its own copy, older ones from the file', async () => {
    const dir = await freshDir();
    const log = await openLog(dir);
    const written = Array.from({ length: 300 }, (_, i) => event(i));
    for (let i = 0; i < written.length; i += 50) await log.append('t.recent', written.slice(i, i + 50));
    const read = async (from: number) => {
      const out: unknown[] = [];
      await log.readPartition('t.recent', { partition: 0, from: String(from), through: '299' }, (r) => void out.push(r.event));
      return out;
    };
    const first = await read(0); // the first 44 are past the memory's 256 records: read from the file
    expect(first).toEqual(written);
    const again = await read(290);
    expect(again).toEqual(written.slice(290));
    expect(again[0]).not.toBe(first[290]);
    await log.close();
    logs.splice(logs.indexOf(log), 1);
    const reopened = await openLog(dir);
    const fromFile: unknown[] = [];
    await reopened.readAll(['t.recent'], (r) => void fromFile.push(r.event));
    expect(fromFile).toEqual(first);
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
    const file = join(dir, 'topics', 't.d', '00000000000000000000.log');
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
    const file = join(dir, 'topics', 't.d', '00000000000000000000.log');
    const text = await readFile(file, 'utf8');
    const lastLine = text.lastIndexOf('"durationMs":1');
    await writeFile(file, `${text.slice(0, lastLine)}"durationMs":7${text.slice(lastLine + 14)}`);
    // Then only the first record survives
    const second = await openLog(dir);
    expect(await readSeqs(second, 't')).toEqual([0]);
  });

  describe('segments and checkpoints', () => {
    const small = { segmentBytes: 700, checkpointRecords: 3 };
    const openSmall = async (dir: string) => {
      const log = await createFileEventLog({ dir, topicOptions: small });
      logs.push(log);
      return log;
    };
    const topicDir = (dir: string) => join(dir, 'topics', 't.d');
    const filesOf = async (dir: string, extension: string) => (await readdir(topicDir(dir))).filter((f) => f.endsWith(extension)).sort();
    const offsetsOf = async (log: EventLog) => {
      const offsets: string[] = [];
      await log.readAll(['t'], (r) => void offsets.push(r.offset));
      return offsets;
    };
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);
    /** A copy of the topics of an open log, as a crash would leave them (no close: no last checkpoint). */
    const crashCopy = async (dir: string) => {
      const copy = await freshDir();
      await cp(join(dir, 'topics'), join(copy, 'topics'), { recursive: true });
      return copy;
    };

    it('rolls segments at the size; a reopen gives every record back in order and appends continue', async () => {
      const dir = await freshDir();
      const first = await openSmall(dir);
      for (const seq of range(10)) await first.append('t', [event(seq)]);
      await first.close();
      // Given several segments, each with its index
      const segments = await filesOf(dir, '.log');
      expect(segments.length).toBeGreaterThan(2);
      expect(await filesOf(dir, '.idx')).toEqual(segments.map((f) => f.replace('.log', '.idx')));
      // When the log opens again
      const second = await openSmall(dir);
      expect(await readSeqs(second, 't')).toEqual(range(10));
      await second.append('t', [event(10)]);
      expect(await offsetsOf(second)).toEqual(range(11).map(String));
      // And a consumer starting from a stored position in a middle segment gets the records from there
      const from7: number[] = [];
      await second.readPartition('t', { partition: 0, from: '7', through: '10' }, (r) => void from7.push(Number(r.offset)));
      expect(from7).toEqual([7, 8, 9, 10]);
    });

    it('after a crash, recovers the records after the last checkpoint and cuts a torn tail', async () => {
      const dir = await freshDir();
      const log = await openSmall(dir);
      for (const seq of range(8)) await log.append('t', [event(seq)]);
      // Given the files as a crash leaves them, with half a line at the end
      const copy = await crashCopy(dir);
      const active = (await filesOf(copy, '.log')).at(-1)!;
      const torn = encodeLine(8, event(8));
      await appendFile(join(topicDir(copy), active), torn.subarray(0, torn.length - 5));
      // Then every acknowledged record is there, and the next append takes offset 8
      const reopened = await openSmall(copy);
      expect(await readSeqs(reopened, 't')).toEqual(range(8));
      await reopened.append('t', [event(8)]);
      expect(await offsetsOf(reopened)).toEqual(range(9).map(String));
    });

    it('scans a segment whose index is missing or damaged, and gives the same records', async () => {
      const dir = await freshDir();
      const first = await openSmall(dir);
      for (const seq of range(9)) await first.append('t', [event(seq)]);
      await first.close();
      const indexes = await filesOf(dir, '.idx');
      // Given one index deleted and another with a flipped byte
      await rm(join(topicDir(dir), indexes[0]!));
      const damaged = join(topicDir(dir), indexes.at(-1)!);
      const bytes = await readFile(damaged);
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
      await writeFile(damaged, bytes);
      const second = await openSmall(dir);
      expect(await readSeqs(second, 't')).toEqual(range(9));
    });

    it('ignores a checkpoint that claims more than its segment holds (never reads past the data)', async () => {
      const dir = await freshDir();
      const first = await openSmall(dir);
      await first.append('t', [event(0), event(1)]);
      await first.close();
      // Given the segment cut back to its first record, with the index of both left in place
      const segment = join(topicDir(dir), (await filesOf(dir, '.log'))[0]!);
      const text = await readFile(segment, 'utf8');
      await writeFile(segment, text.slice(0, text.indexOf('\n') + 1));
      const second = await openSmall(dir);
      expect(await readSeqs(second, 't')).toEqual([0]);
      await second.append('t', [event(2)]);
      expect(await offsetsOf(second)).toEqual(['0', '1']);
    });

    it('refuses to open when a sealed segment is damaged (no record after it is skipped silently)', async () => {
      const dir = await freshDir();
      const first = await openSmall(dir);
      for (const seq of range(8)) await first.append('t', [event(seq)]);
      await first.close();
      // Given the first (sealed) segment losing its last line, and its index gone
      const [segmentFile, indexFile] = [(await filesOf(dir, '.log'))[0]!, (await filesOf(dir, '.idx'))[0]!];
      const segment = join(topicDir(dir), segmentFile);
      const text = await readFile(segment, 'utf8');
      await writeFile(segment, text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
      await rm(join(topicDir(dir), indexFile));
      await expect(createFileEventLog({ dir, topicOptions: small })).rejects.toBeInstanceOf(LogCorruptionError);
    });

    it('opens a data directory written before segments (one file per topic) and keeps appending', async () => {
      // Given topics/t.log as older versions wrote it
      const dir = await freshDir();
      await mkdir(join(dir, 'topics'), { recursive: true });
      await writeFile(join(dir, 'topics', 't.log'), Buffer.concat(range(5).map((seq) => encodeLine(seq, event(seq)))));
      // When it opens
      const log = await openSmall(dir);
      // Then its records are there, the file became the first segment, and appends roll on from it
      expect(await readSeqs(log, 't')).toEqual(range(5));
      expect(await readdir(join(dir, 'topics'))).toEqual(['t.d']);
      await log.append('t', [event(5)]);
      await log.close();
      const again = await openSmall(dir);
      expect(await readSeqs(again, 't')).toEqual(range(6));
    });
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
