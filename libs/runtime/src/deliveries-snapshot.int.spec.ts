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

const TENANT = 'tenant-hooks';
const HOOK = 'https://receiver.example.com/hook';

/** One start of the embedded profile's deliveries, as standalone opens them (with the view snapshots). */
async function start(dataDir: string) {
  const config = loadConfig({ PRESSROOM_PROFILE: 'embedded', PRESSROOM_DATA_DIR: dataDir });
  const rt = await openParts(config, 'standalone', ['log', 'view', 'templates', 'deliveries'], { logger: silentLogger });
  const snapshotter = rt.snapshots?.get('deliveries');
  if (!snapshotter) throw new Error('the embedded profile snapshots the webhook deliveries');
  return {
    rt,
    /** What the deliveries' restore did: from a snapshot or not, and how many records of the log it replayed. */
    restored: () => snapshotter.lastRestore(),
    save: () => snapshotter.save(),
    /** What the dispatcher finds due first (standalone restores the deliveries before it starts). */
    async due() {
      await rt.deliveries.warmUp?.();
      return (await rt.deliveries.claimDue(Date.now() + 1_000, 30_000, 1_000)).sort();
    },
    /** A clean shutdown: the deliveries' snapshot written, the log closed. */
    async stop() {
      await snapshotter.save();
      await snapshotter.close();
      await rt.close();
    },
  };
}

/** An async render with a webhook that succeeded; `delivered`: its webhook was delivered too. */
async function webhookRender(log: EventLog, topics: TopicNames, opts: { delivered: boolean }): Promise<string> {
  const requestId = randomUUID();
  const base = { version: 1 as const, occurredAt: new Date().toISOString(), requestId, tenantId: TENANT };
  await log.append(topics.completed, [
    {
      ...base,
      eventId: randomUUID(),
      type: 'RenderSucceeded',
      data: {
        mode: 'async',
        webhook: HOOK,
        artifact: { target: { kind: 'default' }, key: `${TENANT}/${requestId}.pdf`, contentType: 'application/pdf', bytes: 99 },
        executionMs: 5,
        worker: 'test',
      },
    },
  ]);
  if (opts.delivered) {
    await log.append(topics.webhooks, [
      {
        ...base,
        eventId: randomUUID(),
        type: 'WebhookDelivered',
        data: { url: HOOK, statusCode: 204, durationMs: 12, renderStatus: 'SUCCESS', round: 0, attempts: 1 },
      },
    ]);
  }
  return requestId;
}

describe('embedded webhook deliveries restored from their snapshot', () => {
  it('replays nothing after a clean save, only the tail after new records, the whole log when the snapshot is damaged; what is pending stays due', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-deliveries-snapshot-'));
    dirs.push(dataDir);

    // Given 1,000 past renders (2,000 records on the deliveries' topics), 20 webhook renders delivered and 3 not yet
    const first = await start(dataDir);
    await writePastRenders(first.rt.log, first.rt.topics, 1_000);
    const delivered: string[] = [];
    for (let i = 0; i < 20; i++) delivered.push(await webhookRender(first.rt.log, first.rt.topics, { delivered: true }));
    const pending: string[] = [];
    for (let i = 0; i < 3; i++) pending.push(await webhookRender(first.rt.log, first.rt.topics, { delivered: false }));
    await first.rt.close(); // (a crash: no snapshot)

    // When the deliveries are restored without a snapshot: the whole log, then a clean stop saves them
    // (not before their restore: the view is empty until then, and the dispatcher's group may have committed)
    const second = await start(dataDir);
    expect(await second.save()).toBe(false);
    expect(await second.due()).toEqual([...pending].sort());
    expect(second.restored()).toEqual({ fromSnapshot: false, replayed: 2_043 });
    await second.stop();

    // Then a start after that clean save replays nothing, still finds the pending ones due and the records and index
    const third = await start(dataDir);
    expect(await third.due()).toEqual([...pending].sort());
    expect(third.restored()).toEqual({ fromSnapshot: true, replayed: 0 });
    expect((await third.rt.deliveries.get(delivered[0] as string))?.events.map((e) => e.type)).toEqual(['WebhookDelivered']);
    expect((await third.rt.deliveries.listCompleted(TENANT, 0, Date.now() + 1_000)).sort()).toEqual([...delivered, ...pending].sort());
    // And after it, one pending delivery is delivered and a new webhook render is pending (then a crash)
    await third.rt.log.append(third.rt.topics.webhooks, [
      {
        version: 1,
        eventId: randomUUID(),
        type: 'WebhookDelivered',
        occurredAt: new Date().toISOString(),
        requestId: pending[0] as string,
        tenantId: TENANT,
        data: { url: HOOK, statusCode: 200, durationMs: 9, renderStatus: 'SUCCESS', round: 0, attempts: 1 },
      },
    ]);
    const later = await webhookRender(third.rt.log, third.rt.topics, { delivered: false });
    await third.rt.close();

    // Then the next start replays only those 2 records: the delivered one is no longer due, the new one is
    const fourth = await start(dataDir);
    const stillPending = [pending[1] as string, pending[2] as string, later].sort();
    expect(await fourth.due()).toEqual(stillPending);
    expect(fourth.restored()).toEqual({ fromSnapshot: true, replayed: 2 });
    await fourth.stop();

    // And a damaged snapshot (its header's end no longer matches: cut short) is ignored: the whole log is replayed
    const path = join(dataDir, 'snapshots', 'deliveries.snapshot');
    const good = await readFile(path, 'utf8');
    await writeFile(path, good.slice(0, good.length - 10));
    const fifth = await start(dataDir);
    expect(await fifth.due()).toEqual(stillPending);
    expect(fifth.restored()).toEqual({ fromSnapshot: false, replayed: 2_045 });
    expect((await fifth.rt.deliveries.listCompleted(TENANT, 0, Date.now() + 1_000)).length).toBe(24);
    await fifth.stop();

    // And a damaged record (changed in place: a start reads no items, so it is found when its block
    // is read) makes that read wait for a replay of the whole log, and answers from it
    const saved = await readFile(path, 'utf8');
    expect(saved).toContain('"WebhookDelivered"');
    await writeFile(path, saved.replaceAll('"WebhookDelivered"', '"WebhookDeliverex"'));
    const sixth = await start(dataDir);
    expect(await sixth.due()).toEqual(stillPending);
    expect(sixth.restored()).toEqual({ fromSnapshot: true, replayed: 0 });
    expect((await sixth.rt.deliveries.get(delivered[0] as string))?.events.map((e) => e.type)).toEqual(['WebhookDelivered']);
    await sixth.rt.close();
  });
});
