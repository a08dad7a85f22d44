import Type, { type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { DoorLimits } from '@pressroom/domain';

/**
 * Every setting Pressroom reads, with its default and meaning. Only an app's config.ts
 * passes `process.env` in; the README's configuration table is generated from this schema
 * (`npm run docs:config`).
 */
const Bool = (description: string, dflt: boolean) =>
  Type.Union([Type.Literal('true'), Type.Literal('false')], { default: String(dflt), description });
const Int = (description: string, dflt: number, min = 0) =>
  Type.String({ pattern: '^[0-9]+$', default: String(dflt), description, 'x-min': min });
const Str = (description: string, dflt?: string) =>
  dflt === undefined ? Type.Optional(Type.String({ minLength: 1, description })) : Type.String({ default: dflt, description });

export const ConfigSchema = Type.Object({
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
  PRESSROOM_MAX_BODY_BYTES: Int('Largest accepted request body (413 above).', 5 * 1024 * 1024, 1024),
  PRESSROOM_MAX_ASSET_BYTES: Int(
    'Largest uploaded asset (font or image), decoded; 413 above. Keep it under the body limit / 1.34 (base64).',
    3 * 1024 * 1024,
    1,
  ),
  PRESSROOM_MAX_JSON_DEPTH: Int('Deepest nesting of any JSON request body (400 above).', 100, 2),
  PRESSROOM_MAX_JSON_VALUES: Int(
    'Most values (object members and array elements) in any JSON request body, counted before it is parsed (400 above).',
    20000,
    1,
  ),
  PRESSROOM_MAX_DATA_DEPTH: Int('Deepest nesting of a render’s `data` (400 above).', 32, 1),
  PRESSROOM_MAX_DATA_KEYS: Int('Most object members plus array elements in a render’s `data` (400 above).', 10000, 1),
  PRESSROOM_MAX_DATA_BYTES: Int('Largest render `data`, as JSON (400 above).', 1024 * 1024, 2),
  PRESSROOM_MAX_TEMPLATE_BYTES: Int(
    'Longest template source: content, header and footer together, in characters (400 above).',
    256 * 1024,
    1,
  ),
  PRESSROOM_MAX_TEMPLATE_CODE_BYTES: Int(
    'Most code inside a template’s Eta tags (`<% %>`), all sources together, in characters (400 above): bounds variable inference.',
    64 * 1024,
    1,
  ),
  PRESSROOM_MAX_SCHEMA_BYTES: Int('Largest `dataSchema`, as JSON (400 above).', 64 * 1024, 2),
  PRESSROOM_MAX_SCHEMA_DEPTH: Int('Deepest nesting of a `dataSchema`, counted along every `$ref` it follows (400 above).', 64, 2),
  PRESSROOM_MAX_SCHEMA_NODES: Int(
    'Most subschemas and values of a `dataSchema` once every `$ref` is followed: bounds `anyOf`/`$ref` fan-out (400 above).',
    10000,
    1,
  ),
  PRESSROOM_VALIDATION_TIMEOUT_MS: Int(
    'Time limit of compiling a declared `dataSchema` or checking `data` against it (done off the event loop; 400 above).',
    1000,
    10,
  ),
  PRESSROOM_ALLOW_PRIVATE_WEBHOOKS: Bool(
    'Allow webhook targets on loopback and private addresses (tests, private networks). Metadata and link-local addresses are refused regardless.',
    false,
  ),
  PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS: Bool(
    'Allow tenant S3 connection endpoints on loopback and private addresses (an S3-compatible server inside the network, tests). Metadata and link-local addresses are refused regardless.',
    false,
  ),
  PRESSROOM_WEBHOOK_TIMEOUT_MS: Int('Time limit of one webhook delivery attempt.', 15000, 1),
  PRESSROOM_WEBHOOK_ALLOW_HTTP: Bool(
    'Allow plain http webhook targets on public addresses (https is required otherwise; private targets allowed by PRESSROOM_ALLOW_PRIVATE_WEBHOOKS may use http).',
    false,
  ),
  PRESSROOM_WEBHOOK_ALLOWED_PORTS: Type.String({
    default: '',
    pattern: '^[0-9, ]*$',
    description: 'Comma-separated ports webhook targets may use (any when empty).',
  }),
  PRESSROOM_WEBHOOK_RETRY_BASE_MS: Int('Delay before the 2nd webhook attempt; it doubles per attempt (with jitter).', 60000, 1),
  PRESSROOM_WEBHOOK_RETRY_MAX_MS: Int('Longest delay between two webhook attempts; also caps a receiver’s Retry-After.', 6 * 3600_000, 1),
  PRESSROOM_WEBHOOK_MAX_ATTEMPTS: Int('Webhook attempts per delivery (or per replay) before it is recorded as failed.', 13, 1),
  PRESSROOM_WEBHOOK_SECRET_OVERLAP_MS: Int(
    'After a signing-secret rotation, how long the previous secret keeps signing too.',
    86400_000,
    0,
  ),
  PRESSROOM_WEBHOOK_CONCURRENCY: Int('Webhook attempts in flight at once per dispatcher.', 32, 1),
  PRESSROOM_RENDER_TIMEOUT_MS: Int('Time limit of one render.', 60000, 100),
  PRESSROOM_TOOL_TIMEOUT_MS: Int(
    'Time limit of one program run of a PDF tool (qpdf or Ghostscript on one document), and of fetching one input document.',
    60000,
    100,
  ),
  PRESSROOM_TOOL_MAX_INPUT_BYTES: Int(
    'Largest input document of a PDF tool (fetched or uploaded), and largest upload through a signed upload URL.',
    50 * 1024 * 1024,
    1024,
  ),
  PRESSROOM_RENDER_PAGES: Int('Warm Chromium pages per render worker (renders at once).', 2, 1),
  PRESSROOM_RENDER_TENANT_CAPS: Type.String({
    default: 'standard=1,high=2',
    pattern: '^ *([A-Za-z0-9_-]+ *= *[0-9]+ *(, *[A-Za-z0-9_-]+ *= *[0-9]+ *)*)?$',
    description:
      'Renders in flight per tenant and render worker, by plan (`plan=n`, comma-separated). A plan not listed gets the smallest cap listed. Never more than pages − 1 (with more than one page), so one tenant never holds every page.',
  }),
  PRESSROOM_RENDER_READ_AHEAD: Int(
    'Render requests a worker holds per lane (read ahead, waiting for their turn): how far it can look past a tenant at its cap to serve others.',
    64,
    1,
  ),
  PRESSROOM_RENDER_RECYCLE_AFTER: Int('Renders after which a page is replaced.', 200, 1),
  PRESSROOM_RENDER_MAX_OUTPUT_BYTES: Int('Largest file a render may produce.', 50 * 1024 * 1024, 1024),
  PRESSROOM_RENDER_MAX_PNG_PIXELS: Int(
    'Largest PNG a render may produce, in pixels (width x height); a larger one fails with OUTPUT_TOO_LARGE before it is captured.',
    25_000_000,
    1,
  ),
  PRESSROOM_RENDER_RETRY_BASE_MS: Int(
    'Delay before a render step (storing the file, appending the outcome) that failed for a transient reason is tried again; it doubles per attempt (with jitter).',
    1000,
    1,
  ),
  PRESSROOM_RENDER_RETRY_MAX_MS: Int('Longest delay between two attempts of a render step.', 30000, 1),
  PRESSROOM_RENDER_RETRY_MAX_ATTEMPTS: Int(
    'Attempts of a render step before a transient failure is final (FAILED STORAGE_ERROR, or the request is rendered again).',
    10,
    1,
  ),
  PRESSROOM_RENDER_ALLOWED_HOSTS: Str('Comma-separated hosts a page may fetch over https (none by default).', ''),
  PRESSROOM_RENDER_ALLOW_PRIVATE_HOSTS: Bool(
    'Let allowed render hosts resolve to private addresses (RFC 1918, CGNAT, unique-local): asset servers on an internal network. Loopback, link-local and metadata addresses are refused regardless.',
    false,
  ),
  PRESSROOM_RENDER_CRASH_RETRIES: Int(
    'Further attempts at a render whose renderer process crashed or stopped answering, before it is recorded FAILED with RENDER_CRASHED.',
    2,
    0,
  ),
  PRESSROOM_RENDER_USER: Str(
    'Unprivileged user the renderer process (and Chromium, with its sandbox on) runs as when the service runs as root, e.g. `pressroom-render` (see infra/renderer-user.sh). Default for a root service: `nobody` when that user exists. `root` keeps the renderer as root, without the sandbox (not recommended).',
  ),
  CHROMIUM_PATH: Str('Chromium binary. Default: chromium-headless-shell when installed, else chromium.'),
  PRESSROOM_TOPIC_PREFIX: Str('Prefix of the Kafka topics.', 'pressroom'),
  PRESSROOM_KAFKA_PARTITIONS: Int('Partitions of each topic when Pressroom creates it.', 6, 1),
  PRESSROOM_KAFKA_SESSION_TIMEOUT_MS: Int(
    'Kafka consumer session timeout: how soon a crashed member’s partitions move to another.',
    30000,
    1000,
  ),
  PRESSROOM_KAFKA_APPEND_TIMEOUT_MS: Int(
    'How long the ingress waits for the log to take a render request before it answers 503 (both profiles); a request the log writes later is withdrawn, never rendered.',
    10000,
    100,
  ),
  PRESSROOM_ACCEPT_CLOCK_SKEW_MS: Int(
    'Clock difference tolerated between the ingress and the Kafka brokers when the render worker decides a request was written after the ingress refused it.',
    2000,
    0,
  ),
  PRESSROOM_IDEMPOTENCY_TTL_MS: Int('How long an Idempotency-Key of a render request is remembered (per tenant).', 24 * 3600_000, 60_000),
  PRESSROOM_REDIS_PREFIX: Str('Prefix of every Redis key.', 'pressroom:'),
  PRESSROOM_LOG_LEVEL: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')], {
    default: 'info',
    description: 'Lowest level written to the JSON log on stdout.',
  }),
  KAFKA_BROKERS: Str('Comma-separated Kafka bootstrap servers (distributed profile).'),
  SCHEMA_REGISTRY_URL: Str('Confluent-compatible schema registry; events are then encoded in its wire format.'),
  PRESSROOM_SCHEMA_SUBJECT_PREFIX: Str(
    'Prefix of the registry subjects (`<prefix>pressroom.<Type>.v1`), for deployments sharing one registry.',
    '',
  ),
  REDIS_URL: Str('Redis URL (distributed profile).'),
  S3_ENDPOINT: Str('S3 endpoint for our own bucket (omit for AWS).'),
  S3_REGION: Str('Region of our own bucket.', 'us-east-1'),
  S3_ACCESS_KEY_ID: Str('Access key of our own bucket.'),
  S3_SECRET_ACCESS_KEY: Str('Secret key of our own bucket.'),
  S3_FORCE_PATH_STYLE: Bool('Path-style S3 addressing (S3Proxy, MinIO).', true),
  PRESSROOM_S3_BUCKET: Str('Our own bucket for rendered files (distributed profile).', 'pressroom-artifacts'),
  PRESSROOM_S3_REQUEST_TIMEOUT_MS: Int(
    'How long an S3 request may go without an answer before it counts as failed (and is retried): bounds a hanging storage server.',
    30000,
    100,
  ),
});

type Raw = Static<typeof ConfigSchema>;

export interface PressroomConfig {
  port: number;
  profile: 'embedded' | 'distributed';
  dataDir: string;
  publicUrl: string;
  apiKey: string | undefined;
  adminToken: string | undefined;
  secretKey: string | undefined;
  syncTimeoutMs: number;
  maxBodyBytes: number;
  maxAssetBytes: number;
  /** Bounds on tenant input, checked at the door. */
  limits: DoorLimits;
  validationTimeoutMs: number;
  allowPrivateWebhooks: boolean;
  allowPrivateS3Endpoints: boolean;
  webhookTimeoutMs: number;
  webhooks: {
    allowHttp: boolean;
    allowedPorts: number[];
    retry: { baseDelayMs: number; maxDelayMs: number; maxAttempts: number };
    secretOverlapMs: number;
    concurrency: number;
  };
  render: {
    timeoutMs: number;
    pages: number;
    /** Cap on renders in flight per tenant, by plan name. */
    tenantCaps: Record<string, number>;
    readAhead: number;
    recycleAfter: number;
    maxOutputBytes: number;
    maxPngPixels: number;
    allowedHosts: string[];
    allowPrivateHosts: boolean;
    chromiumPath: string | undefined;
    /** Retries of a render step that failed for a transient reason. */
    retry: { baseDelayMs: number; maxDelayMs: number; maxAttempts: number };
    crashRetries: number;
    user: string | undefined;
  };
  /** The PDF tools (/v1/tools/*). */
  tools: { timeoutMs: number; maxInputBytes: number };
  topicPrefix: string;
  kafkaPartitions: number;
  kafkaSessionTimeoutMs: number;
  kafkaAppendTimeoutMs: number;
  /** See PRESSROOM_ACCEPT_CLOCK_SKEW_MS. */
  acceptClockSkewMs: number;
  /** How long an Idempotency-Key is remembered. */
  idempotencyTtlMs: number;
  redisPrefix: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  kafkaBrokers: string[];
  schemaRegistryUrl: string | undefined;
  schemaSubjectPrefix: string;
  redisUrl: string | undefined;
  s3: {
    endpoint: string | undefined;
    region: string;
    accessKeyId: string | undefined;
    secretAccessKey: string | undefined;
    forcePathStyle: boolean;
    bucket: string;
    requestTimeoutMs: number;
  };
}

/** ConfigError happens at start when settings are missing or malformed; it lists every problem. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const validator = Compile(ConfigSchema);

export function loadConfig(env: Record<string, string | undefined>): PressroomConfig {
  const raw: Record<string, string> = {};
  for (const [name, schema] of Object.entries(ConfigSchema.properties) as [string, TSchema & { default?: string }][]) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
    else if (schema.default !== undefined) raw[name] = schema.default;
  }
  const problems = [...validator.Errors(raw)].map((e) => `${e.instancePath.slice(1) || '(root)'}: ${e.message}`);
  if (problems.length) throw new ConfigError(problems);
  const c = raw as Raw;
  const port = Number(c.PORT);
  const config: PressroomConfig = {
    port,
    profile: c.PRESSROOM_PROFILE,
    dataDir: c.PRESSROOM_DATA_DIR,
    publicUrl: (c.PRESSROOM_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    apiKey: c.PRESSROOM_API_KEY,
    adminToken: c.PRESSROOM_ADMIN_TOKEN,
    secretKey: c.PRESSROOM_SECRET_KEY,
    syncTimeoutMs: Number(c.PRESSROOM_SYNC_TIMEOUT_MS),
    maxBodyBytes: Number(c.PRESSROOM_MAX_BODY_BYTES),
    maxAssetBytes: Number(c.PRESSROOM_MAX_ASSET_BYTES),
    limits: {
      jsonDepth: Number(c.PRESSROOM_MAX_JSON_DEPTH),
      jsonValues: Number(c.PRESSROOM_MAX_JSON_VALUES),
      dataDepth: Number(c.PRESSROOM_MAX_DATA_DEPTH),
      dataKeys: Number(c.PRESSROOM_MAX_DATA_KEYS),
      dataBytes: Number(c.PRESSROOM_MAX_DATA_BYTES),
      templateBytes: Number(c.PRESSROOM_MAX_TEMPLATE_BYTES),
      templateCodeBytes: Number(c.PRESSROOM_MAX_TEMPLATE_CODE_BYTES),
      schemaBytes: Number(c.PRESSROOM_MAX_SCHEMA_BYTES),
      schemaDepth: Number(c.PRESSROOM_MAX_SCHEMA_DEPTH),
      schemaNodes: Number(c.PRESSROOM_MAX_SCHEMA_NODES),
    },
    validationTimeoutMs: Number(c.PRESSROOM_VALIDATION_TIMEOUT_MS),
    allowPrivateWebhooks: c.PRESSROOM_ALLOW_PRIVATE_WEBHOOKS === 'true',
    allowPrivateS3Endpoints: c.PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS === 'true',
    webhookTimeoutMs: Number(c.PRESSROOM_WEBHOOK_TIMEOUT_MS),
    webhooks: {
      allowHttp: c.PRESSROOM_WEBHOOK_ALLOW_HTTP === 'true',
      allowedPorts: splitList(c.PRESSROOM_WEBHOOK_ALLOWED_PORTS).map(Number),
      retry: {
        baseDelayMs: Number(c.PRESSROOM_WEBHOOK_RETRY_BASE_MS),
        maxDelayMs: Number(c.PRESSROOM_WEBHOOK_RETRY_MAX_MS),
        maxAttempts: Number(c.PRESSROOM_WEBHOOK_MAX_ATTEMPTS),
      },
      secretOverlapMs: Number(c.PRESSROOM_WEBHOOK_SECRET_OVERLAP_MS),
      concurrency: Number(c.PRESSROOM_WEBHOOK_CONCURRENCY),
    },
    render: {
      timeoutMs: Number(c.PRESSROOM_RENDER_TIMEOUT_MS),
      pages: Number(c.PRESSROOM_RENDER_PAGES),
      tenantCaps: Object.fromEntries(
        splitList(c.PRESSROOM_RENDER_TENANT_CAPS).map((pair) => {
          const [plan = '', cap = ''] = pair.split('=');
          return [plan.trim(), Number(cap.trim())];
        }),
      ),
      readAhead: Number(c.PRESSROOM_RENDER_READ_AHEAD),
      recycleAfter: Number(c.PRESSROOM_RENDER_RECYCLE_AFTER),
      maxOutputBytes: Number(c.PRESSROOM_RENDER_MAX_OUTPUT_BYTES),
      maxPngPixels: Number(c.PRESSROOM_RENDER_MAX_PNG_PIXELS),
      allowedHosts: splitList(c.PRESSROOM_RENDER_ALLOWED_HOSTS),
      allowPrivateHosts: c.PRESSROOM_RENDER_ALLOW_PRIVATE_HOSTS === 'true',
      chromiumPath: c.CHROMIUM_PATH,
      retry: {
        baseDelayMs: Number(c.PRESSROOM_RENDER_RETRY_BASE_MS),
        maxDelayMs: Number(c.PRESSROOM_RENDER_RETRY_MAX_MS),
        maxAttempts: Number(c.PRESSROOM_RENDER_RETRY_MAX_ATTEMPTS),
      },
      crashRetries: Number(c.PRESSROOM_RENDER_CRASH_RETRIES),
      user: c.PRESSROOM_RENDER_USER,
    },
    tools: { timeoutMs: Number(c.PRESSROOM_TOOL_TIMEOUT_MS), maxInputBytes: Number(c.PRESSROOM_TOOL_MAX_INPUT_BYTES) },
    topicPrefix: c.PRESSROOM_TOPIC_PREFIX,
    kafkaPartitions: Number(c.PRESSROOM_KAFKA_PARTITIONS),
    kafkaSessionTimeoutMs: Number(c.PRESSROOM_KAFKA_SESSION_TIMEOUT_MS),
    kafkaAppendTimeoutMs: Number(c.PRESSROOM_KAFKA_APPEND_TIMEOUT_MS),
    acceptClockSkewMs: Number(c.PRESSROOM_ACCEPT_CLOCK_SKEW_MS),
    idempotencyTtlMs: Number(c.PRESSROOM_IDEMPOTENCY_TTL_MS),
    redisPrefix: c.PRESSROOM_REDIS_PREFIX,
    logLevel: c.PRESSROOM_LOG_LEVEL,
    kafkaBrokers: splitList(c.KAFKA_BROKERS ?? ''),
    schemaRegistryUrl: c.SCHEMA_REGISTRY_URL,
    schemaSubjectPrefix: c.PRESSROOM_SCHEMA_SUBJECT_PREFIX,
    redisUrl: c.REDIS_URL,
    s3: {
      endpoint: c.S3_ENDPOINT,
      region: c.S3_REGION,
      accessKeyId: c.S3_ACCESS_KEY_ID,
      secretAccessKey: c.S3_SECRET_ACCESS_KEY,
      forcePathStyle: c.S3_FORCE_PATH_STYLE === 'true',
      bucket: c.PRESSROOM_S3_BUCKET,
      requestTimeoutMs: Number(c.PRESSROOM_S3_REQUEST_TIMEOUT_MS),
    },
  };
  const more: string[] = [];
  if (config.profile === 'distributed') {
    if (!config.kafkaBrokers.length) more.push('KAFKA_BROKERS: required by the distributed profile');
    if (!config.redisUrl) more.push('REDIS_URL: required by the distributed profile');
    if (!config.secretKey) more.push('PRESSROOM_SECRET_KEY: required by the distributed profile');
    if (config.secretKey && config.secretKey.length < 32) more.push('PRESSROOM_SECRET_KEY: must be at least 32 characters');
  }
  if (more.length) throw new ConfigError(more);
  return config;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
