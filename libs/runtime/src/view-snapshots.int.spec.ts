import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger, startStatusProjector, startTemplateProjector, type StatusView } from '@pressroom/core';
import { writePastRenders } from '@pressroom/testing';
import { loadConfig } from './config.ts';
import { openParts } from './runtime.ts';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** One start of the embedded profile's views, as standalone does it: restore, then follow the log. */
async function start(dataDir: string) {
  const config = loadConfig({ PRESSROOM_PROFILE: 'embedded', PRESSROOM_DATA_DIR: dataDir });
  const rt = await openParts(config, 'standalone', ['log', 'view', 'templates'], { logger: silentLogger });
  const snapshots = rt.snapshots;
  if (!snapshots) throw new Error('the embedded profile has view snapshots');
  const status = snapshots.get('status');
  const projector = await startStatusProjector({ ...rt, rebuildOnStart: true, ...(status ? { restore: () => status.restore() } : {}) });
  const templates = await startTemplateProjector({ ...rt, rebuildOnStart: true });
  return {
    rt,
    replayed: () => status?.lastRestore(),
    /** A clean shutdown: projectors stop (positions committed), last snapshot, log closed. */
    async stop() {
      await projector.stop();
      await templates.stop();
      await snapshots.close();
      await rt.close();
    },
  };
}

async function states(view: StatusView, ids: string[]) {
  return Promise.all(ids.map(async (id) => (await view.get(id))?.state));
}

/** One render's events, written apart: its request, then its attempt and success (worker and html named `label`). */
function oneRender(requestId: string, label: string) {
  const base = { version: 1 as const, occurredAt: new Date().toISOString(), requestId, tenantId: 'tenant-history' };
  return {
    requested: [
      {
        ...base,
        eventId: randomUUID(),
        type: 'RenderRequested' as const,
        data: {
          mode: 'async' as const,
          source: { kind: 'html' as const, html: `<p>${label}</p>` },
          output: 'pdf' as const,
          storage: { kind: 'default' as const },
        },
      },
    ],
    finished: [
      { ...base, eventId: randomUUID(), type: 'RenderAttemptStarted' as const, data: { attempt: 1, worker: label } },
      {
        ...base,
        eventId: randomUUID(),
        type: 'RenderSucceeded' as const,
        data: {
          mode: 'async' as const,
          artifact: {
            target: { kind: 'default' as const },
            key: `tenant-history/${requestId}.pdf`,
            contentType: 'application/pdf',
            bytes: 99,
          },
          executionMs: 5,
          worker: label,
        },
      },
    ],
  };
}

describe('embedded start-up with view snapshots', () => {
  it('replays only the log after the latest snapshot, whatever the history, and a deleted snapshot rebuilds the same view', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-snapshots-'));
    dirs.push(dataDir);

    // Given a data dir with 3,000 past renders (9,000 records) written straight to the log
    const first = await start(dataDir);
    const past = await writePastRenders(first.rt.log, first.rt.topics, 3_000);
    await first.rt.close(); // (a crash: no snapshot)

    // When it starts without a snapshot, the whole history is replayed; a clean shutdown snapshots it
    const second = await start(dataDir);
    expect(second.replayed()).toEqual({ fromSnapshot: false, replayed: 9_000 });
    await second.stop();
    expect(await readdir(join(dataDir, 'snapshots'))).toEqual(expect.arrayContaining(['status.snapshot', 'templates.snapshot']));

    // And 10 more renders happen after the snapshot
    const third = await start(dataDir);
    expect(third.replayed()).toEqual({ fromSnapshot: true, replayed: 0 });
    const recent = await writePastRenders(third.rt.log, third.rt.topics, 10);
    // (a crash: no clean shutdown, so no new snapshot)
    await third.rt.close();

    // Then the next start replays only those 30 records, not the 9,030 of the history
    const fourth = await start(dataDir);
    expect(fourth.replayed()).toEqual({ fromSnapshot: true, replayed: 30 });
    const withSnapshot = await states(fourth.rt.view, [...past, ...recent]);
    expect(withSnapshot.every((s) => s === 'SUCCESS')).toBe(true);
    await fourth.rt.close();

    // And without the snapshot (deleted: it is only a cache) the start replays everything to the same view
    await rm(join(dataDir, 'snapshots'), { recursive: true });
    const fifth = await start(dataDir);
    expect(fifth.replayed()).toEqual({ fromSnapshot: false, replayed: 9_030 });
    expect(await states(fifth.rt.view, [...past, ...recent])).toEqual(withSnapshot);
    expect(await fifth.rt.view.get(past[0] as string)).toEqual(await fourth.rt.view.get(past[0] as string));
    await fifth.stop();
  });

  it('reads an entry of the snapshot when first asked for, applies the events after it to that entry, and merges it into the next snapshot', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-snapshots-tail-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    const past = await writePastRenders(first.rt.log, first.rt.topics, 200);
    // One render accepted before the snapshot, finished after it.
    const requestId = randomUUID();
    const render = oneRender(requestId, 'late');
    await first.rt.log.append(first.rt.topics.requestedAsync, render.requested);
    await first.rt.close();
    const second = await start(dataDir); // replays everything, snapshots it at the clean stop
    expect((await second.rt.view.get(requestId))?.state).toBe('ONGOING');
    await second.stop();

    // After the snapshot: the render finishes (a crash follows: no new snapshot)
    const third = await start(dataDir);
    expect(third.replayed()).toEqual({ fromSnapshot: true, replayed: 0 });
    await third.rt.log.append(third.rt.topics.completed, render.finished);
    await third.rt.close();

    // Then a start with the snapshot applies the tail to the entry it reads from the snapshot
    const fourth = await start(dataDir);
    expect(fourth.replayed()).toEqual({ fromSnapshot: true, replayed: 2 });
    expect(await fourth.rt.view.get(requestId)).toMatchObject({ state: 'SUCCESS', requestId });
    expect(await states(fourth.rt.view, past)).toEqual(past.map(() => 'SUCCESS'));
    expect(await fourth.rt.view.get(randomUUID())).toBeUndefined();
    await fourth.stop();

    // And the snapshot written at that stop holds the old entries and the changed one
    const fifth = await start(dataDir);
    expect(fifth.replayed()).toEqual({ fromSnapshot: true, replayed: 0 });
    expect(await fifth.rt.view.get(requestId)).toMatchObject({ state: 'SUCCESS' });
    expect(await states(fifth.rt.view, past)).toEqual(past.map(() => 'SUCCESS'));
    await fifth.stop();
  });

  it('holds in memory only what changed since the last snapshot: finished entries it wrote are read through to it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-snapshots-forget-'));
    dirs.push(dataDir);
    const deltaPath = join(dataDir, 'snapshots', 'status.delta.snapshot');
    const running = await start(dataDir);
    const status = running.rt.snapshots?.get('status');
    if (!status) throw new Error('no status snapshotter');

    // Given 300 finished renders and one still running, applied by the projector
    const past = await writePastRenders(running.rt.log, running.rt.topics, 300);
    const requestId = randomUUID();
    const render = oneRender(requestId, 'running');
    await running.rt.log.append(running.rt.topics.requestedAsync, render.requested);
    await expect
      .poll(() => states(running.rt.view, [...past, requestId]), { timeout: 30_000 })
      .toEqual([...past.map(() => 'SUCCESS'), 'ONGOING']);

    // When a snapshot is written while the service runs (a base: the first one)
    expect(await status.save()).toBe(true);

    // Then finished entries are answered from the snapshot (an entry read through is kept in
    // memory until the next snapshot), the running one from memory
    expect(await states(running.rt.view, [past[0]!, past[299]!, requestId])).toEqual(['SUCCESS', 'SUCCESS', 'ONGOING']);

    // And when the running render finishes and 5 more happen, the next snapshot (a delta) is
    // written from memory that holds only those 6 and the 2 read: not the 300 the first one holds
    await running.rt.log.append(running.rt.topics.completed, render.finished);
    const recent = await writePastRenders(running.rt.log, running.rt.topics, 5);
    await expect
      .poll(() => states(running.rt.view, [requestId, ...recent]), { timeout: 30_000 })
      .toEqual(recent.map(() => 'SUCCESS').concat('SUCCESS'));
    expect(await status.save()).toBe(true);
    const delta = await readFile(deltaPath, 'utf8');
    expect(delta.split('\n').filter((l) => l.includes('"requestId"'))).toHaveLength(8);
    const all = [...past, requestId, ...recent];
    expect(await states(running.rt.view, all)).toEqual(all.map(() => 'SUCCESS'));

    // And a start after a crash finds everything in base and delta
    await running.rt.close();
    const next = await start(dataDir);
    expect(next.replayed()).toEqual({ fromSnapshot: true, replayed: 0 });
    expect(await states(next.rt.view, all)).toEqual(all.map(() => 'SUCCESS'));
    await next.stop();
  });

  it('writes only a delta of the changed entries beside the base, reads it first, and ignores one that is gone or of another base', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-snapshots-delta-'));
    dirs.push(dataDir);
    const snapshots = join(dataDir, 'snapshots');
    const basePath = join(snapshots, 'status.snapshot');
    const deltaPath = join(snapshots, 'status.delta.snapshot');
    const first = await start(dataDir);
    const past = await writePastRenders(first.rt.log, first.rt.topics, 300);
    await first.rt.close();

    // Given a base written by a start that replayed the whole history
    const second = await start(dataDir);
    expect(second.replayed()).toEqual({ fromSnapshot: false, replayed: 900 });
    await second.stop();
    const base = await readFile(basePath, 'utf8');
    expect(await readdir(snapshots)).not.toContain('status.delta.snapshot');

    // When 10 renders happen and the service stops cleanly
    const third = await start(dataDir);
    expect(third.replayed()).toEqual({ fromSnapshot: true, replayed: 0 });
    const recent = await writePastRenders(third.rt.log, third.rt.topics, 10);
    // (the projector applied them: its committed position is what the snapshot covers)
    await expect.poll(() => states(third.rt.view, recent), { timeout: 30_000 }).toEqual(recent.map(() => 'SUCCESS'));
    await third.stop();

    // Then the base is left as it was and a delta holds only those 10 entries
    expect(await readFile(basePath, 'utf8')).toEqual(base);
    const delta = await readFile(deltaPath, 'utf8');
    expect(delta.split('\n').filter((l) => l.includes('"requestId"'))).toHaveLength(10);

    // And 5 more happen before a crash: the next start replays only those 15 records
    const fourth = await start(dataDir);
    expect(fourth.replayed()).toEqual({ fromSnapshot: true, replayed: 0 });
    const later = await writePastRenders(fourth.rt.log, fourth.rt.topics, 5);
    await fourth.rt.close();
    const fifth = await start(dataDir);
    expect(fifth.replayed()).toEqual({ fromSnapshot: true, replayed: 15 });
    const all = [...past, ...recent, ...later];
    expect(await states(fifth.rt.view, all)).toEqual(all.map(() => 'SUCCESS'));
    await fifth.rt.close();

    // A delta deleted, or of another base, is ignored: the log after the base is replayed (45 records)
    await rm(deltaPath);
    const sixth = await start(dataDir);
    expect(sixth.replayed()).toEqual({ fromSnapshot: true, replayed: 45 });
    expect(await states(sixth.rt.view, all)).toEqual(all.map(() => 'SUCCESS'));
    await sixth.rt.close();
    await writeFile(deltaPath, delta.replace(/"base":"[^"]+"/, `"base":"${'0'.repeat(36)}"`));
    const seventh = await start(dataDir);
    expect(seventh.replayed()).toEqual({ fromSnapshot: true, replayed: 45 });
    expect(await states(seventh.rt.view, all)).toEqual(all.map(() => 'SUCCESS'));
    await seventh.rt.close();

    // And a whole save merges base, delta and what changed after them into a new base, and drops the delta
    await writeFile(deltaPath, delta);
    const eighth = await start(dataDir);
    expect(eighth.replayed()).toEqual({ fromSnapshot: true, replayed: 15 });
    expect(await eighth.rt.snapshots?.get('status')?.save({ whole: true })).toBe(true);
    await eighth.rt.close();
    expect(await readdir(snapshots)).not.toContain('status.delta.snapshot');
    const ninth = await start(dataDir);
    expect(ninth.replayed()).toEqual({ fromSnapshot: true, replayed: 0 });
    expect(await states(ninth.rt.view, all)).toEqual(all.map(() => 'SUCCESS'));
    await ninth.rt.close();
  });

  it('ignores a snapshot of an older format, a damaged one and one ahead of the log, and rebuilds from the log', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-snapshots-bad-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    const past = await writePastRenders(first.rt.log, first.rt.topics, 20);
    await first.rt.close();
    const second = await start(dataDir);
    await second.stop();
    const path = join(dataDir, 'snapshots', 'status.snapshot');
    const good = await readFile(path, 'utf8');
    const [header = '', ...rest] = good.split('\n');

    const variants = {
      olderFormat: [header.replace('"status-view/2"', '"status-view/1"'), ...rest].join('\n'),
      truncated: good.slice(0, good.length / 2),
      aheadOfTheLog: [header.replace(/"(pressroom\.render\.completed)":\d+/, '"$1":999999'), ...rest].join('\n'),
    };
    expect(variants.olderFormat).not.toEqual(good);
    for (const [name, text] of Object.entries(variants)) {
      await writeFile(path, text);
      const started = await start(dataDir);
      expect({ name, ...started.replayed() }).toEqual({ name, fromSnapshot: false, replayed: 60 });
      expect(await states(started.rt.view, past)).toEqual(past.map(() => 'SUCCESS'));
      await started.rt.close();
    }

    // A damaged item is only found when its block is read (a start does not read the items): the
    // read that finds it waits for the whole log to be replayed, and answers from that.
    // (same length: a bit flipped in place, not a file cut short)
    await writeFile(path, good.replace('"SUCCESS"', '"PENDING"'));
    const damaged = await start(dataDir);
    expect(damaged.replayed()).toEqual({ fromSnapshot: true, replayed: 0 });
    expect(await states(damaged.rt.view, past)).toEqual(past.map(() => 'SUCCESS'));
    await damaged.rt.close();
  });
});
