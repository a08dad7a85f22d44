import Type from 'typebox';
import { Int, optional, slice, Str } from './setting.ts';

/** What every app reads: its port, the profile, where embedded state lives, keys, logging. */
export const serviceSlice = slice({
  env: {
    PORT: Int('HTTP port of the app (ingress API, or health/metrics of the other apps).', 3000),
    PRESSROOM_PROFILE: Type.Union([Type.Literal('embedded'), Type.Literal('distributed')], {
      default: 'embedded',
      description: '`embedded`: one process, state on local disk, no servers. `distributed`: Kafka, Redis, S3 (and a schema registry).',
    }),
    PRESSROOM_DATA_DIR: Str('Where the embedded profile keeps its log, views, catalog and files.', './data'),
    PRESSROOM_PUBLIC_URL: Str(
      'Base URL clients use to reach the ingress; statusUrl and local file links are built from it. Default http://localhost:$PORT.',
    ),
    PRESSROOM_API_KEY: Str('When set at start, registers this key for the `default` tenant on the high plan.'),
    PRESSROOM_ADMIN_TOKEN: Str('Bearer token of the operator-only /admin/v1 API. The admin API is off when unset.'),
    PRESSROOM_SECRET_KEY: Str(
      'Secret that signs local file URLs and seals stored S3 secrets. Required in the distributed profile; the embedded profile generates one under the data dir.',
    ),
    PRESSROOM_SYNC_TIMEOUT_MS: Int('How long a sync call waits for its render before answering 202 with a status URL.', 30000, 1),
    PRESSROOM_LOG_LEVEL: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')], {
      default: 'info',
      description: 'Lowest level written to the JSON log on stdout.',
    }),
    PRESSROOM_METRICS_PORT: Int(
      'Port of a listener of its own that serves only /metrics (then PORT no longer does). 0: /metrics is served on PORT, beside /healthz and /readyz.',
      0,
    ),
    PRESSROOM_METRICS_HOST: Str(
      'Address the listener of PRESSROOM_METRICS_PORT binds (e.g. 127.0.0.1 for a scraper on the same host).',
      '0.0.0.0',
    ),
    PRESSROOM_SNAPSHOT_INTERVAL_MS: Int(
      'Embedded profile: how often the status and template views, the Idempotency-Keys and the webhook deliveries are snapshotted under the data dir (when the log moved), so a start replays only the log after the latest snapshot. Also written at a clean shutdown. 0: only at shutdown.',
      300000,
    ),
    PRESSROOM_METRICS_TOKEN: Str('When set, /metrics answers 401 unless the request carries `Authorization: Bearer <token>`.'),
  },
  read(c) {
    const port = Number(c.PORT);
    return {
      port,
      profile: c.PRESSROOM_PROFILE,
      dataDir: c.PRESSROOM_DATA_DIR,
      publicUrl: (c.PRESSROOM_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
      apiKey: optional(c.PRESSROOM_API_KEY),
      adminToken: optional(c.PRESSROOM_ADMIN_TOKEN),
      secretKey: optional(c.PRESSROOM_SECRET_KEY),
      syncTimeoutMs: Number(c.PRESSROOM_SYNC_TIMEOUT_MS),
      logLevel: c.PRESSROOM_LOG_LEVEL,
      snapshotIntervalMs: Number(c.PRESSROOM_SNAPSHOT_INTERVAL_MS),
      /** Where /metrics is served (port undefined: on PORT) and the token it asks for. */
      metrics: {
        port: Number(c.PRESSROOM_METRICS_PORT) || undefined,
        host: c.PRESSROOM_METRICS_HOST,
        token: optional(c.PRESSROOM_METRICS_TOKEN),
      },
    };
  },
  check(config, profile) {
    if (profile !== 'distributed') return [];
    const problems: string[] = [];
    if (!config.secretKey) problems.push('PRESSROOM_SECRET_KEY: required by the distributed profile');
    if (config.secretKey && config.secretKey.length < 32) problems.push('PRESSROOM_SECRET_KEY: must be at least 32 characters');
    return problems;
  },
});
