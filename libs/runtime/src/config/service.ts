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
