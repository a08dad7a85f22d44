import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@pressroom/core';
import { writePastRenders } from '@pressroom/testing';
import { loadConfig } from './config.ts';
import { openParts } from './runtime.ts';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const open = (dataDir: string) =>
  openParts(loadConfig({ PRESSROOM_PROFILE: 'embedded', PRESSROOM_DATA_DIR: dataDir }), 'standalone', ['log', 'idempotency'], {
    logger: silentLogger,
  });

/**
 * The embedded profile's Idempotency-Keys are restored in the background once the service listens
 * (standalone's `warmUp`): from their snapshot and the log after it, or, as here (a crash before
 * any snapshot), from the whole log. A keyed request arriving during that replay must still find
 * the key its first request took before the restart (idempotency-keys-snapshot.int.spec.ts: with a snapshot).
 */
describe('embedded Idempotency-Keys while they replay in the background after a start', () => {
  it('a claim made during the background replay waits for it and answers the first request, never a second render', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-idem-warmup-'));
    dirs.push(dataDir);
    // Given a history: 2,000 past renders, then one keyed request accepted before a restart
    const before = await open(dataDir);
    await writePastRenders(before.log, before.topics, 2_000);
    const first = randomUUID();
    const fingerprint = 'a'.repeat(64);
    await before.log.append(before.topics.requestedAsync, [
      {
        version: 1,
        eventId: randomUUID(),
        type: 'RenderRequested',
        occurredAt: new Date().toISOString(),
        requestId: first,
        tenantId: 'tenant-history',
        data: {
          mode: 'async',
          source: { kind: 'html', html: '<p>keyed</p>' },
          output: 'pdf',
          storage: { kind: 'default' },
          idempotencyKey: 'retry-me',
          idempotencyFingerprint: fingerprint,
        },
      },
    ]);
    await before.close();

    // When the service starts, begins the background replay, and a retry claims the key at once
    const after = await open(dataDir);
    let replayDone = false;
    const warmUp = after.idempotency.warmUp?.().then(() => (replayDone = true));
    expect(warmUp).toBeDefined();
    const claiming = after.idempotency.claim('tenant-history', 'retry-me', { requestId: randomUUID(), fingerprint }, 30_000);
    expect(replayDone).toBe(false); // (the claim was made while the replay ran)

    // Then the claim loses to the first request: the ingress answers its requestId, renders nothing new
    expect(await claiming).toEqual({ won: false, existing: { requestId: first, fingerprint, state: 'accepted' } });
    await warmUp;
    expect(replayDone).toBe(true);
    // And another tenant's same key, and a fresh key, are still free
    expect(await after.idempotency.claim('tenant-other', 'retry-me', { requestId: randomUUID(), fingerprint }, 30_000)).toEqual({
      won: true,
    });
    expect(await after.idempotency.claim('tenant-history', 'fresh', { requestId: randomUUID(), fingerprint }, 30_000)).toEqual({
      won: true,
    });
    await after.close();
  });
});
