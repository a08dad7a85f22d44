import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { Logger } from '@pressroom/core';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Field names whose values never reach the log, at any depth pino's redaction reaches (the
 * field itself and one level under any field): credentials a caller might pass by mistake.
 * Document data is never logged by the apps; this is the net under that rule.
 */
const SECRET_KEYS = [
  'apiKey',
  'api_key',
  'authorization',
  'adminToken',
  'token',
  'password',
  'secret',
  'secretKey',
  'secretAccessKey',
  'sessionToken',
  'signingSecret',
  'cookie',
];
export const REDACTED = '[redacted]';

/**
 * One JSON object per line (pino): `level` (label), `time` (ISO 8601), `app`, `msg`, and the
 * fields given, with the child fields (requestId, tenantId, group, ...) of the logger it came from.
 * Any field holding an Error is written with its type, message, stack, own properties (`code`,
 * `syscall`, `address`, ...) and its `cause` chain, so the ECONNREFUSED behind a storage
 * failure is in the line. BigInt values and circular references do not throw (safe-stable-stringify).
 * `write` receives each line without its newline (tests, the ops CLI's stderr); the default is
 * stdout, written synchronously so the last lines before an exit are not lost.
 */
export function createJsonLogger(opts: { level: LogLevel; app: string; write?: (line: string) => void }): Logger {
  const destination: DestinationStream = opts.write
    ? { write: (chunk: string) => opts.write?.(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) }
    : pino.destination({ dest: 1, sync: true });
  const root = pino(
    {
      level: opts.level,
      base: { app: opts.app },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Every Error field is serialized by serializeFields (cause chain kept); pino's own `err`
      // serializer would take the result for an error again and fold the causes away.
      serializers: { err: (value: unknown) => value },
      redact: { paths: SECRET_KEYS.flatMap((k) => [k, `*.${k}`]), censor: REDACTED },
    },
    destination,
  );
  return wrap(root);
}

function wrap(p: PinoLogger): Logger {
  const at = (level: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (!p.isLevelEnabled(level)) return;
    if (fields) p[level](serializeFields(fields), msg);
    else p[level](msg);
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (fields) => wrap(p.child(serializeFields(fields))),
  };
}

/** Errors become plain objects with their cause chain; everything else is left to pino's stringifier. */
export function serializeFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? serializeError(v) : v;
  return out;
}

/** type, message, stack, own enumerable properties and `cause` (recursively), as pino's errWithCause serializer. */
export function serializeError(err: Error): Record<string, unknown> {
  return pino.stdSerializers.errWithCause(err);
}
