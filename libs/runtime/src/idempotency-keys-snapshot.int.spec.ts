import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger, type EventLog, type TopicNames } from '@pressroom/core';
import { writePastRenders } from '@pressroom/testing';
import { loadConfig } from './config.ts';
import { openParts } from './runtime.ts';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const TENANT = 'tenant-history';
const fingerprint = 'f'.repeat(64);

/** One start of the embedded profile's Idempotency-Keys, as standalone opens them (with the view snapshots). */
async function start(dataDir: string) {
  const config = loadConfig({ PRESSROOM_PROFILE: 'embedded', PRESSROOM_DATA_DIR: dataDir });
  const rt = await openParts(config, 'standalone', ['log', 'view', 'templates', 'idempotency'], { logger: silentLogger });
  const snapshotter = rt.snapshots?.get('idempotency-keys');
  if (!snapshotter) throw new Error('the embedded profile snapshots the Idempotency-Keys');
  return {
    rt,
    /** What the keys' restore did: from a snapshot or not, and how many records of the log it replayed. */
    restored: () => snapshotter.lastRestore(),
    save: () => snapshotter.save(),
    /** A claim of a retry, as the ingress makes it: what it answers the caller follows from this. */
    retry: (key: string) => rt.idempotency.claim(TENANT, key, { requestId: randomUUID(), fingerprint }, 30_000),
    /** A clean shutdown: the keys' snapshot written, the log closed. */
    async stop() {
      await snapshotter.save();
      await snapshotter.close();
      await rt.close();
    },
  };
}

/** A keyed RenderRequested, as the ingress appends it after winning the key's claim. */
async function appendKeyed(log: EventLog, topics: TopicNames, key: string, requestId = randomUUID()): Promise<string> {
  await log.append(topics.requestedAsync, [
    {
      version: 1,
      eventId: randomUUID(),
      type: 'RenderRequested',
      occurredAt: new Date().toISOString(),
      requestId,
      tenantId: TENANT,
      data: {
        mode: 'async',
        source: { kind: 'html', html: `<p>${key}</p>` },
        output: 'pdf',
        storage: { kind: 'default' },
        idempotencyKey: key,
        idempotencyFingerprint: fingerprint,
      },
    },
  ]);
  return requestId;
}

async function appendWithdrawn(log: EventLog, topics: TopicNames, requestId: string): Promise<void> {
  await log.append(topics.completed, [
    {
      version: 1,
      eventId: randomUUID(),
      type: 'RenderWithdrawn',
      occurredAt: new Date().toISOString(),
      requestId,
      tenantId: TENANT,
      data: { mode: 'async', reason: 'NOT_ACCEPTED', by: 'ingress-test' },
    },
  ]);
}

const heldBy = (requestId: string) => ({ won: false, existing: { requestId, fingerprint, state: 'accepted' } });

describe('embedded Idempotency-Keys restored from their snapshot', () => {
  it('replays nothing after a clean save, only the tail after new records, and the whole log when the snapshot is damaged', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-keys-snapshot-'));
    dirs.push(dataDir);

    // Given 1,000 past renders (3,000 records), a keyed request taken and one refused (withdrawn)
    const first = await start(dataDir);
    await writePastRenders(first.rt.log, first.rt.topics, 1_000);
    const taken = await appendKeyed(first.rt.log, first.rt.topics, 'taken');
    const refused = await appendKeyed(first.rt.log, first.rt.topics, 'refused');
    await appendWithdrawn(first.rt.log, first.rt.topics, refused);
    await first.rt.close(); // (a crash: no snapshot)

    // When the keys are restored without a snapshot: the whole log, then a clean stop saves them (not before the restore)
    const second = await start(dataDir);
    expect(await second.save()).toBe(false);
    await second.rt.idempotency.warmUp?.();
    expect(second.restored()).toEqual({ fromSnapshot: false, replayed: 3_003 });
    expect(await second.retry('taken')).toEqual(heldBy(taken));
    await second.stop();

    // Then a start after that clean save replays nothing and answers the same
    const third = await start(dataDir);
    expect(await third.retry('taken')).toEqual(heldBy(taken));
    expect(third.restored()).toEqual({ fromSnapshot: true, replayed: 0 });
    expect(await third.retry('refused')).toEqual({ won: true }); // withdrawn: never taken, the key is free
    // And 10 renders and a keyed request happen after it (then a crash: no new snapshot)
    await writePastRenders(third.rt.log, third.rt.topics, 10);
    const later = await appendKeyed(third.rt.log, third.rt.topics, 'later');
    await third.rt.close();

    // Then the next start replays only those 31 records, and knows both keys
    const fourth = await start(dataDir);
    expect(await fourth.retry('later')).toEqual(heldBy(later));
    expect(fourth.restored()).toEqual({ fromSnapshot: true, replayed: 31 });
    expect(await fourth.retry('taken')).toEqual(heldBy(taken));
    await fourth.stop();

    // And a damaged snapshot (an item changed in place: its CRC no longer matches) is ignored: the whole log is replayed
    const path = join(dataDir, 'snapshots', 'idempotency-keys.snapshot');
    const good = await readFile(path, 'utf8');
    expect(good).toContain(taken);
    await writeFile(path, good.replace(taken, later));
    const fifth = await start(dataDir);
    expect(await fifth.retry('taken')).toEqual(heldBy(taken));
    expect(fifth.restored()).toEqual({ fromSnapshot: false, replayed: 3_034 });
    expect(await fifth.retry('later')).toEqual(heldBy(later));
    await fifth.rt.close();

    // And so is one written under another window (it may lack keys a longer window holds)
    await writeFile(path, good);
    const config = loadConfig({ PRESSROOM_PROFILE: 'embedded', PRESSROOM_DATA_DIR: dataDir, PRESSROOM_IDEMPOTENCY_TTL_MS: '7200000' });
    const longer = await openParts(config, 'standalone', ['log', 'view', 'templates', 'idempotency'], { logger: silentLogger });
    expect(await longer.idempotency.claim(TENANT, 'taken', { requestId: randomUUID(), fingerprint }, 30_000)).toEqual(heldBy(taken));
    expect(longer.snapshots?.get('idempotency-keys')?.lastRestore()).toEqual({ fromSnapshot: false, replayed: 3_034 });
    await longer.close();
  });

  it('answers a key repeated right after a restart with the first request id, from the snapshot and the tail only, whatever its claim was at the snapshot', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-keys-pending-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    await writePastRenders(first.rt.log, first.rt.topics, 2_000);
    await first.rt.idempotency.warmUp?.();

    // Given three keyed requests in flight when a snapshot is taken: each claimed (pending), and
    // - "on-log": its RenderRequested appended before the snapshot, the claim not yet accepted
    // - "after":  its RenderRequested appended after the snapshot (the claim was pending at it)
    // - "never":  its process dies before appending (the caller was never answered 200)
    const onLog = randomUUID();
    const after = randomUUID();
    for (const [key, requestId] of [
      ['on-log', onLog],
      ['after', after],
      ['never', randomUUID()],
    ] as const) {
      expect(await first.rt.idempotency.claim(TENANT, key, { requestId, fingerprint }, 30_000)).toEqual({ won: true });
    }
    await appendKeyed(first.rt.log, first.rt.topics, 'on-log', onLog);
    expect(await first.save()).toBe(true);
    await appendKeyed(first.rt.log, first.rt.topics, 'after', after);
    await first.rt.close(); // (a crash: no claim accepted, no snapshot after the last append)

    // When the service starts again and the caller retries each key at once
    const second = await start(dataDir);
    const answers = {
      onLog: await second.retry('on-log'),
      after: await second.retry('after'),
      never: await second.retry('never'),
    };

    // Then each taken request answers its own id (never a second render), the one never taken is a new attempt,
    // and the keys came from the snapshot and the one record after it, not from the 6,000 of the history
    expect(answers).toEqual({ onLog: heldBy(onLog), after: heldBy(after), never: { won: true } });
    expect(second.restored()).toEqual({ fromSnapshot: true, replayed: 1 });
    await second.rt.close();
  });
});
