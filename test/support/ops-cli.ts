import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Runs the ops command line as an operator would, with the service's configuration. */
export function runOps(env: Record<string, string>, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = join(import.meta.dirname, '..', '..');
  return new Promise((resolve) => {
    const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'apps', 'ops', 'src', 'main.ts'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
