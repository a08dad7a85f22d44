import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppProcess, freePort } from './service-process.ts';
import { apiClient } from './api-client.ts';

/** The embedded profile as `npm start` runs it: one process, state in its data dir. */
export async function startEmbedded(extraEnv: Record<string, string> = {}, opts: { withApiKey?: boolean; nodeArgs?: string[] } = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-e2e-'));
  const port = await freePort();
  const apiKey = `prk_test_${randomBytes(16).toString('hex')}`;
  const adminToken = `adm_${randomBytes(16).toString('hex')}`;
  const env = {
    PRESSROOM_PROFILE: 'embedded',
    PRESSROOM_DATA_DIR: dataDir,
    ...(opts.withApiKey === false ? {} : { PRESSROOM_API_KEY: apiKey }),
    PRESSROOM_ADMIN_TOKEN: adminToken,
    PRESSROOM_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PRESSROOM_ALLOW_PRIVATE_WEBHOOKS: 'true',
    // Tenant S3 connections in the tests point at the local S3Proxy.
    PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS: 'true',
    PRESSROOM_LOG_LEVEL: 'info',
    ...extraEnv,
  };
  const app = await new AppProcess('standalone', env, port, opts.nodeArgs).start();
  return {
    app,
    dataDir,
    apiKey,
    adminToken,
    baseUrl: app.url,
    api: apiClient(app.url, apiKey),
    admin: apiClient(app.url, adminToken),
  };
}

/**
 * The lines of the embedded log's segment files (one JSON record per line), of every topic or of
 * the topics given, read directly: the running service owns the log, so the ops CLI cannot open it.
 * A line torn by a kill may be among them.
 */
export async function readEmbeddedLogLines(dataDir: string, topics?: string[]): Promise<string[]> {
  const root = join(dataDir, 'log', 'topics');
  const dirs = topics
    ? topics.map((t) => `${encodeURIComponent(t)}.d`)
    : (await readdir(root).catch(() => [])).filter((d) => d.endsWith('.d'));
  const lines: string[] = [];
  for (const dir of dirs) {
    const segments = (await readdir(join(root, dir)).catch(() => [])).filter((f) => f.endsWith('.log')).sort();
    for (const segment of segments) lines.push(...(await readFile(join(root, dir, segment), 'utf8')).split('\n').filter(Boolean));
  }
  return lines;
}
