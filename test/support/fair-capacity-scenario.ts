import { expect } from 'vitest';
import { download, type ApiClient } from './api-client.ts';
import { isPdf } from './pdf-tools.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/** A page that never finishes: it holds its render slot until the render time limit. */
export const spinForever = '<p>x</p><script>while (true) {}</script>';
/** Slow but finishing: busy for `ms`, then done. */
export const spinFor = (ms: number) => `<p>slow</p><script>const end = Date.now() + ${ms}; while (Date.now() < end) {}</script>`;

type ApiResponse = Awaited<ReturnType<ApiClient['post']>>;

/** What the fair-capacity scenario needs of a profile under test. */
export interface FairCapacityProfile {
  /** Names the profile in the figure the scenario prints. */
  label: string;
  hostile: ApiClient;
  calm: ApiClient;
  receiver: WebhookReceiver;
  syncWaitMs: number;
  /** The pages of the hostile tenant's async flood (each POSTed once, all with a webhook). */
  hostileAsync: string[];
  /** Resolves once both hostile sync requests are on the log (appended = accepted). */
  hostileSyncOnLog(): Promise<unknown>;
  /** Resolves once the renderer has started one of the hostile tenant's renders. */
  hostileRendering(): Promise<unknown>;
}

/** The answers the scenario got, for a profile's own further checks. */
export interface FairCapacityOutcome {
  calm: ApiResponse;
  hostileSync: ApiResponse[];
  hostileAsync: ApiResponse[];
}

/**
 * Issue 7 point 5, the same on every profile: one tenant's hostile or slow renders must not push
 * another tenant's sync render past the sync wait. The calm tenant's sync render is timed alone,
 * then during the hostile tenant's flood (two never-ending sync renders and the async pages);
 * it must get its file, and the hostile sync renders are what waits (202 after the sync wait).
 */
export async function floodThenCalmSync(p: FairCapacityProfile): Promise<FairCapacityOutcome> {
  // Without the flood: the calm tenant's figure to compare with
  const quietStart = performance.now();
  const quiet = await p.calm.post('/v1/html-to-pdf/sync', { html: '<p>quiet</p>' });
  const quietMs = Math.round(performance.now() - quietStart);
  expect(quiet.status).toBe(200);

  // Given the hostile tenant's two never-ending sync renders and its async flood, all accepted
  const hostileSync = [1, 2].map(() => p.hostile.post('/v1/html-to-pdf/sync', { html: spinForever }).catch((e: Error) => e));
  const webhook = p.receiver.url('/hostile');
  const hostileAsync = await Promise.all(p.hostileAsync.map((html) => p.hostile.post('/v1/html-to-pdf/async', { html, webhook })));
  expect(hostileAsync.map((r) => r.status)).toEqual(p.hostileAsync.map(() => 200));
  await p.hostileSyncOnLog();
  await p.hostileRendering();

  // When the calm tenant asks for a one-line sync render
  const floodStart = performance.now();
  const calm = await p.calm.post('/v1/html-to-pdf/sync', { html: '<p>hello from calm</p>' });
  const floodMs = Math.round(performance.now() - floodStart);

  // Then it gets its file, not a 202 after the sync wait
  expect(calm.status).toBe(200);
  expect(isPdf((await download(calm.json.signedUrl)).bytes)).toBe(true);
  console.info(
    `${p.label}: calm tenant's sync render ${quietMs} ms alone, ${floodMs} ms during the hostile flood (sync wait ${p.syncWaitMs} ms)`,
  );

  // And the hostile tenant's own sync renders are what waits
  const syncAnswers = await Promise.all(hostileSync);
  expect(syncAnswers.map((r) => ('status' in r ? r.status : r.message))).toEqual([202, 202]);
  return { calm, hostileSync: syncAnswers.filter((r): r is ApiResponse => 'status' in r), hostileAsync };
}
