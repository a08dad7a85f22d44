import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ObjectStore } from '@pressroom/core';
import { createMetrics } from './metrics.ts';
import { metricsAnswer } from './metrics-endpoint.ts';
import { ProcessTreeUsage, parseProcStat } from './process-tree.ts';
import { timedObjectStore } from './timed-object-store.ts';

/** A /proc/<pid>/stat line: utime and stime in ticks (100/s), rss in 4 KiB pages. */
const stat = (pid: number, comm: string, ppid: number, utime: number, stime: number, rssPages: number) =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 100 1000000 ${rssPages} 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0`;

describe('metrics endpoint', () => {
  it('answers the registry text when no token is configured, and 401 without the right bearer token when one is', async () => {
    const { registry } = createMetrics();
    const open = await metricsAnswer(registry, undefined, undefined);
    expect(open.status).toBe(200);
    expect(open.body).toContain('pressroom_event_loop_delay_seconds_bucket');
    expect(open.body).not.toContain('nodejs_active_handles_total');
    expect((await metricsAnswer(registry, 's3cret', undefined)).status).toBe(401);
    expect((await metricsAnswer(registry, 's3cret', 'Bearer wrong')).status).toBe(401);
    const denied = await metricsAnswer(registry, 's3cret', 'Basic s3cret');
    expect(denied.status).toBe(401);
    expect(JSON.parse(denied.body)).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    expect((await metricsAnswer(registry, 's3cret', 'Bearer s3cret')).status).toBe(200);
  });

  it('reports the consumer lag and renderer sources at scrape time, and no lag when the source fails', async () => {
    const metrics = createMetrics();
    let fail = false;
    metrics.observeConsumerLag(async () => {
      if (fail) throw new Error('kafka down');
      return [{ group: 'g.renderer.sync', topic: 't.sync', partition: 2, lag: 7 }];
    });
    metrics.observeRenderer(() => ({ hostPid: undefined, pages: 4, busyPages: 1, hostRestarts: 2, pagesReplaced: 5 }));
    const text = await metrics.registry.metrics();
    expect(text).toContain('pressroom_consumer_lag_records{group="g.renderer.sync",topic="t.sync",partition="2"} 7');
    expect(text).toContain('pressroom_page_pool_size_pages 4');
    expect(text).toContain('pressroom_page_pool_busy_pages 1');
    expect(text).toContain('pressroom_page_pool_restarts_total 2');
    expect(text).toContain('pressroom_page_pool_replacements_total 5');
    fail = true;
    expect(await metrics.registry.metrics()).not.toContain('pressroom_consumer_lag_records{');
  });
});

describe('Chromium process tree usage (/proc)', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('parses a stat line whose command holds spaces and parentheses', () => {
    expect(parseProcStat(42, stat(42, 'chrome (renderer) x', 7, 150, 50, 1000))).toEqual({
      pid: 42,
      ppid: 7,
      cpuSeconds: 2,
      residentBytes: 4096 * 1000,
    });
    expect(parseProcStat(1, 'garbage')).toBeUndefined();
  });

  it('sums the descendants of the root, not the root, and keeps the CPU of exited processes', async () => {
    dir = await mkdtemp(join(tmpdir(), 'proc-'));
    const put = async (pid: number, line: string) => {
      await mkdir(join(dir!, String(pid)), { recursive: true });
      await writeFile(join(dir!, String(pid), 'stat'), line);
    };
    await put(10, stat(10, 'node', 1, 1000, 0, 100)); // the host: not counted
    await put(11, stat(11, 'chromium', 10, 100, 100, 200));
    await put(12, stat(12, 'chromium', 11, 50, 50, 300));
    await put(99, stat(99, 'unrelated', 1, 500, 0, 400));
    const usage = new ProcessTreeUsage(dir, 0);
    expect(await usage.sample(10)).toEqual({ cpuSeconds: 3, residentBytes: 4096 * 500, processes: 2 });
    await rm(join(dir, '12'), { recursive: true });
    expect(await usage.sample(10)).toEqual({ cpuSeconds: 3, residentBytes: 4096 * 200, processes: 1 });
    expect(await new ProcessTreeUsage(join(dir, 'absent')).sample(10)).toEqual({ cpuSeconds: 0, residentBytes: 0, processes: 0 });
  });
});

describe('timed object store', () => {
  it('times each call by operation and outcome, and passes results and errors through', async () => {
    const metrics = createMetrics();
    const store: ObjectStore = {
      put: async () => {},
      get: async () => undefined,
      delete: async () => {
        throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      },
      signedGetUrl: async (key) => `http://x/${key}`,
      ping: async () => {},
    };
    const timed = timedObjectStore(store, metrics);
    await timed.put('k', new Uint8Array(1), 'application/pdf');
    expect(await timed.signedGetUrl('k', 60)).toBe('http://x/k');
    await expect(timed.delete('k')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const text = await metrics.registry.metrics();
    expect(text).toContain('pressroom_storage_operation_duration_seconds_count{operation="put",outcome="ok"} 1');
    expect(text).toContain('pressroom_storage_operation_duration_seconds_count{operation="sign",outcome="ok"} 1');
    expect(text).toContain('pressroom_storage_operation_duration_seconds_count{operation="delete",outcome="error"} 1');
  });
});
