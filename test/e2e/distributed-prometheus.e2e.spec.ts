import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@pressroom/testing';
import { distributedEnv } from '../support/distributed-service.ts';
import { AppProcess, freePort } from '../support/service-process.ts';

const root = join(import.meta.dirname, '..', '..');
const promDir = join(root, 'infra', 'prometheus');

/** Runs a command to its end; resolves with its output and exit code (never rejects on a non-zero exit). */
function run(
  cmd: string,
  args: string[],
  opts: { input?: string; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, args, { cwd: opts.cwd ?? root, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(new Error(err.message, { cause: err }));
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

type Env = Awaited<ReturnType<typeof distributedEnv>>;
interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * The distributed profile as an operator runs it: Debian's Prometheus (infra/prometheus/ensure.sh)
 * scrapes the four apps, with the metrics token the apps are given and, for the render worker,
 * on the separate metrics port; the PromQL an operator's dashboard and alerts use answers.
 */
describe('distributed profile: metrics scraped by a real Prometheus', () => {
  let env: Env;
  let worker: AppProcess;
  let ingress: AppProcess;
  let others: AppProcess[];
  let workerMetricsPort: number;
  let prometheus: ChildProcess | undefined;
  let promUrl: string;
  let promtool: string;
  let tmp: string;
  const token = `mt_${randomBytes(16).toString('hex')}`;
  const targets: Record<string, string> = {};

  beforeAll(async () => {
    const ensured = await run('bash', [join(promDir, 'ensure.sh')]);
    expect(ensured.code, ensured.stderr).toBe(0);
    const bin = ensured.stdout.trim();
    promtool = join(bin, 'promtool');

    env = await distributedEnv({ PRESSROOM_METRICS_TOKEN: token });
    workerMetricsPort = await freePort();
    worker = new AppProcess(
      'render-worker',
      { ...env.env, PRESSROOM_METRICS_PORT: String(workerMetricsPort), PRESSROOM_METRICS_HOST: '127.0.0.1' },
      await freePort(),
    );
    // The ingress first (it creates the topics), as the other distributed specs do.
    ingress = await env.start('ingress', env.ingressPort);
    others = await Promise.all([env.start('status-projector'), env.start('webhook-dispatcher')]);
    await worker.start();
    targets['pressroom-ingress'] = `127.0.0.1:${ingress.port}`;
    targets['pressroom-status-projector'] = `127.0.0.1:${others[0]!.port}`;
    targets['pressroom-webhook-dispatcher'] = `127.0.0.1:${others[1]!.port}`;
    targets['pressroom-render-worker'] = `127.0.0.1:${workerMetricsPort}`;

    tmp = await mkdtemp(join(tmpdir(), 'pressroom-prometheus-'));
    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    // JSON is YAML: the shipped alert rules, and one job per app as infra/prometheus/prometheus.yml has.
    const config = {
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [join(promDir, 'alerts.yml')],
      scrape_configs: Object.entries(targets).map(([job, target]) => ({
        job_name: job,
        authorization: { type: 'Bearer', credentials: token },
        static_configs: [{ targets: [target] }],
      })),
    };
    await writeFile(join(tmp, 'prometheus.yml'), JSON.stringify(config, null, 2));
    const child = spawn(
      join(bin, 'prometheus'),
      [
        `--config.file=${join(tmp, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(tmp, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prometheus = child;
    const promLog: string[] = [];
    child.stderr?.on('data', (c: Buffer) => promLog.push(c.toString('utf8')));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${promLog.join('')}`);
        return (await fetch(`${promUrl}/-/ready`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'prometheus to be ready' },
    );
  });
  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await env?.stopAll();
    await worker?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  async function query(promql: string): Promise<PromSample[]> {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as { status: string; error?: string; data: { resultType: string; result: PromSample[] } };
    if (body.status !== 'success') throw new Error(`${promql}: ${body.error}`);
    return body.data.result;
  }
  /** Polls a query until `accept` takes its result (Prometheus scrapes every second). */
  function queryUntil(promql: string, accept: (r: PromSample[]) => boolean, timeoutMs = 30_000): Promise<PromSample[]> {
    return waitFor(
      async () => {
        const r = await query(promql);
        return accept(r) ? r : undefined;
      },
      { timeoutMs, intervalMs: 500, description: `Prometheus to answer ${promql} as expected` },
    );
  }
  const value = (s: PromSample | undefined) => Number(s?.value[1]);

  async function renderSync(text: string): Promise<void> {
    const res = await env.api.post('/v1/html-to-pdf/sync', { html: `<p>${text}</p>` });
    expect(res.status, res.text).toBe(200);
  }

  it('/metrics asks for the token, and the worker serves it on its own port only', async () => {
    const open = await fetch(`${ingress.url}/metrics`);
    expect(open.status).toBe(401);
    expect(((await open.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
    const wrong = await fetch(`${ingress.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    const ok = await fetch(`${ingress.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('pressroom_http_request_duration_seconds');

    expect((await fetch(`${worker.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    expect((await fetch(`${worker.url}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).status).toBe(401);
    const workerMetrics = await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(workerMetrics.status).toBe(200);
    expect(await workerMetrics.text()).toContain('pressroom_page_pool_size_pages 1');
  });

  it('Prometheus scrapes every app and answers render rate, p95 render time and consumer lag', async () => {
    await queryUntil('up', (r) => r.length === 4 && r.every((s) => value(s) === 1));
    // A counter's series starts at its first render: one render, seen by Prometheus, then more,
    // so the rate has an increase to see.
    await renderSync('first render');
    await queryUntil('pressroom_renders_total{outcome="success"}', (r) => value(r[0]) >= 1);
    await renderSync('second render');
    await renderSync('third render');

    const rate = await queryUntil('sum(rate(pressroom_renders_total{outcome="success"}[1m]))', (r) => value(r[0]) > 0);
    expect(value(rate[0])).toBeGreaterThan(0);
    const p95 = await queryUntil('histogram_quantile(0.95, sum by (le) (rate(pressroom_render_duration_seconds_bucket[1m])))', (r) =>
      Number.isFinite(value(r[0])),
    );
    expect(value(p95[0])).toBeGreaterThan(0);
    expect(value(p95[0])).toBeLessThanOrEqual(60);

    // Lag per group and partition (3 partitions here); every request was handled, so it drains to 0.
    const group = `${env.env.PRESSROOM_TOPIC_PREFIX}.renderer.sync`;
    const lag = await queryUntil(
      `max by (group, topic, partition) (pressroom_consumer_lag_records{group="${group}"})`,
      (r) => r.length === 3 && r.every((s) => value(s) === 0),
    );
    expect(lag.map((s) => s.metric.partition).sort()).toEqual(['0', '1', '2']);
    expect(lag.every((s) => s.metric.topic === `${env.env.PRESSROOM_TOPIC_PREFIX}.render.requested.sync`)).toBe(true);
    // The other consumers report their groups too (status projector, webhook dispatcher).
    const groups = await queryUntil('count by (group) (pressroom_consumer_lag_records)', (r) => r.length >= 3);
    expect(groups.length).toBeGreaterThanOrEqual(3);

    // Queue wait (accepted → render start) for the three, and the pool the worker rendered them on.
    const waits = await queryUntil('sum(pressroom_render_queue_wait_seconds_count{lane="sync"})', (r) => value(r[0]) >= 3);
    expect(value(waits[0])).toBe(3);
    expect(value((await query('sum(pressroom_page_pool_size_pages)'))[0])).toBe(1);
    const stored = await query('sum(pressroom_storage_operation_duration_seconds_count{operation="put",outcome="ok"})');
    expect(value(stored[0])).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('promtool check metrics passes on every app, and the shipped rules load and pass their tests', async () => {
    for (const [job, target] of Object.entries(targets)) {
      const text = await (await fetch(`http://${target}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
      const checked = await run(promtool, ['check', 'metrics'], { input: text });
      expect({ job, code: checked.code, out: checked.stdout + checked.stderr }).toEqual({ job, code: 0, out: '' });
    }
    const rules = await run(promtool, ['check', 'rules', 'alerts.yml'], { cwd: promDir });
    expect(rules.code, rules.stdout + rules.stderr).toBe(0);
    const tests = await run(promtool, ['test', 'rules', 'alerts.test.yml'], { cwd: promDir });
    expect(tests.code, tests.stdout + tests.stderr).toBe(0);
    const config = await run(promtool, ['check', 'config', '--syntax-only', 'prometheus.yml'], { cwd: promDir });
    expect(config.code, config.stdout + config.stderr).toBe(0);

    const loaded = (await (await fetch(`${promUrl}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; health: string }[] }[] };
    };
    const alerts = loaded.data.groups.flatMap((g) => g.rules);
    expect(alerts.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'PressroomConsumerLagGrowing',
        'PressroomRenderFailureRatioHigh',
        'PressroomSyncFallbackRatioHigh',
        'PressroomWebhookFailures',
        'PressroomPagePoolRestarts',
      ]),
    );
    expect(alerts.filter((r) => r.health !== 'ok' && r.health !== 'unknown')).toEqual([]);
  }, 60_000);

  it('the ingress writes one JSON access line per request, without the body or the key', async () => {
    const line = await ingress.waitForLog((l) => l.msg === 'http request' && l.route === '/v1/html-to-pdf/sync');
    expect(line).toMatchObject({
      level: 'info',
      app: 'ingress',
      method: 'POST',
      status: 200,
      tenantId: 'default',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      durationMs: expect.any(Number),
    });
    expect(typeof line.time).toBe('string');
    const all = ingress.output.join('\n');
    expect(all).not.toContain('first render'); // document data
    expect(all).not.toContain(env.apiKey);
    expect(all).not.toContain(token);
  });
});
