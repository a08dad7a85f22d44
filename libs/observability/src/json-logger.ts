import type { Logger } from '@pressroom/core';

const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof levels;

/** One JSON object per line on stdout: what log shippers expect. */
export function createJsonLogger(opts: { level: LogLevel; app: string; write?: (line: string) => void }): Logger {
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const min = levels[opts.level];
  const make = (base: Record<string, unknown>): Logger => {
    const emit = (level: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
      if (levels[level] < min) return;
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...serialize(fields) }));
    };
    return {
      debug: emit('debug'),
      info: emit('info'),
      warn: emit('warn'),
      error: emit('error'),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make({ app: opts.app });
}

function serialize(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!fields) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] = v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v;
  }
  return out;
}
