import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { silentLogger } from '@pressroom/core';
import type { LogEvent } from '@pressroom/schemas';

/**
 * Runs the ops command line as an operator would, with the service's configuration: as a script
 * does (`--json`) unless `json: false` (the human tables); `input` is written to its stdin.
 */
export function runOps(
  env: Record<string, string>,
  args: string[],
  opts: { json?: boolean; input?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = join(import.meta.dirname, '..', '..');
  return new Promise((resolve) => {
    const flags = opts.json === false ? [] : ['--json'];
    const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'apps', 'ops', 'src', 'main.ts'), ...flags, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    });
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Every event on the log, in the order `ops events` prints them: the same read (`readAll` over the
 * same topics, through the runtime the CLI opens, from the service's configuration, a fresh
 * connection each time), made in this process. A fault test's ledger polls the log many times;
 * spawning the CLI for each read cost ~8 s of start-up (tsx, every runtime part) per poll. The
 * CLI itself is exercised by the tests that run `ops events` (embedded-ops-cli, distributed-*).
 */
export async function readLogEvents(env: Record<string, string>): Promise<LogEvent[]> {
  // The embedded service holds its log file (the CLI would go through its admin API instead).
  if (env.PRESSROOM_PROFILE !== 'distributed') throw new Error('readLogEvents reads the distributed log only');
  const { loadConfig, openParts } = await import('@pressroom/runtime');
  const rt = await openParts(loadConfig(env), 'ops', ['log'], { logger: silentLogger });
  try {
    const t = rt.topics;
    const events: LogEvent[] = [];
    await rt.log.readAll([t.requestedSync, t.requestedAsync, t.completed, t.webhooks, t.templates, t.catalog, t.assets], (r) => {
      events.push(r.event);
    });
    return events;
  } finally {
    await rt.close();
  }
}
