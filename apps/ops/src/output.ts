import { SingleBar, Presets } from 'cli-progress';
import Table from 'cli-table3';
import type { EventLog } from '@pressroom/core';

/** How the CLI answers: human tables by default, JSON with `--json` (for scripts). */
export interface Output {
  json: boolean;
  /** One result: a key/value table (or a table of rows for a list), or pretty JSON. */
  result(value: unknown): void;
  /** A line of a stream (events): JSON lines with --json, else the human line. */
  line(value: unknown, human: string): void;
  note(message: string): void;
}

const cell = (v: unknown): string => {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return v.toString();
  return JSON.stringify(v);
};

function table(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    const rows = value as unknown[];
    const columns = [...new Set(rows.flatMap((row) => (row && typeof row === 'object' ? Object.keys(row) : ['value'])))];
    const t = new Table({ head: columns, style: { head: [], border: [] } });
    for (const row of rows as Record<string, unknown>[]) t.push(columns.map((c) => cell(row && typeof row === 'object' ? row[c] : row)));
    return t.toString();
  }
  if (value && typeof value === 'object') {
    const t = new Table({ style: { head: [], border: [] } });
    for (const [k, v] of Object.entries(value))
      t.push({ [k]: Array.isArray(v) && v.every((x) => typeof x !== 'object') ? v.join(', ') : cell(v) });
    return t.toString();
  }
  return cell(value);
}

export function createOutput(json: boolean, out = process.stdout, err = process.stderr): Output {
  return {
    json,
    result: (value) => out.write((json ? JSON.stringify(value, null, 2) : table(value)) + '\n'),
    line: (value, human) => out.write((json ? JSON.stringify(value) : human) + '\n'),
    note: (message) => err.write(message + '\n'),
  };
}

/** Where a progress bar draws: stderr, or a test's stream. */
type BarStream = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * A progress bar with rate and ETA on stderr, only when stderr is a terminal and the output is
 * for humans; otherwise a no-op (scripts, CI, pipes see nothing).
 */
export function progress(
  label: string,
  total: number,
  enabled: boolean,
  stream: BarStream = process.stderr,
): { tick(n?: number): void; stop(): void } {
  if (!enabled || !stream.isTTY || total <= 0) return { tick: () => {}, stop: () => {} };
  const bar = new SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_formatted}`,
      stream,
      etaBuffer: 200,
      fps: 5,
      // A test's stream (or a terminal cli-progress does not recognise) is still drawn on.
      noTTYOutput: true,
      notTTYSchedule: 200,
    },
    Presets.shades_classic,
  );
  const started = Date.now();
  bar.start(total, 0, { rate: '0' });
  let done = 0;
  return {
    tick(n = 1) {
      done += n;
      bar.update(done, { rate: Math.round(done / Math.max(0.001, (Date.now() - started) / 1000)).toString() });
    },
    stop: () => bar.stop(),
  };
}

/**
 * The same log, whose whole-topic reads (what every rebuild and replay does) draw a progress bar:
 * its total is the sum of the topics' end offsets (no read of the log; past retention, an
 * overestimate), counted only when a bar will show.
 */
export function withReplayProgress(log: EventLog, label: string, enabled: boolean, stream: BarStream = process.stderr): EventLog {
  const readAll: EventLog['readAll'] = async (topics, visit, opts) => {
    let total = 0;
    if (enabled && stream.isTTY) for (const t of topics) for (const p of await log.endOffsets(t)) total += Number(p.end);
    const bar = progress(label, total, enabled, stream);
    try {
      return await log.readAll(
        topics,
        (r) => {
          bar.tick();
          return visit(r);
        },
        opts,
      );
    } finally {
      bar.stop();
    }
  };
  // Methods stay bound to the log itself (an adapter class may keep private fields).
  return new Proxy(log, {
    get: (target, prop) => {
      if (prop === 'readAll') return readAll;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
