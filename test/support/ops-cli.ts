import { spawn } from 'node:child_process';
import { join } from 'node:path';
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
    // As `npm run ops` runs it (scripts/run-ts.mjs): no tsx where Node strips types itself.
    const child = spawn(
      process.execPath,
      [join(root, 'scripts', 'run-ts.mjs'), join(root, 'apps', 'ops', 'src', 'main.ts'), ...flags, ...args],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      },
    );
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Every event on the log, in the order `ops events` prints them (an audit as an operator runs it).
 * Through the CLI, not an in-process read: an in-process reader was tried to save the CLI's
 * start-up per poll, and twice left a fault test's ledger unsettled after a broker restart
 * (158 events read); the CLI is the read an operator makes, and it settled every time.
 */
export async function readLogEvents(env: Record<string, string>): Promise<LogEvent[]> {
  const out = await runOps(env, ['events']);
  if (out.code !== 0) throw new Error(`ops events failed: ${out.stderr}`);
  return out.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { event: LogEvent }).event);
}
