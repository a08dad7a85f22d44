import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Limits of one program run: wall time, address space, CPU seconds and largest file written. */
export interface ProgramLimits {
  timeoutMs: number;
  maxMemoryBytes: number;
  maxCpuSeconds: number;
  maxOutputBytes: number;
}

export interface ProgramResult {
  code: number | null;
  /** Standard output, up to 64 KiB (the programs here print little: a page count). */
  stdout: string;
  signal: NodeJS.Signals | null;
  stderr: string;
  timedOut: boolean;
}

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p));
const STDERR_KEPT = 8 * 1024;
const STDOUT_KEPT = 64 * 1024;

/**
 * Runs `program args…` as a child process: never through a shell (arguments are passed as they
 * are), in its own process group, under prlimit's caps on memory, CPU time and file size (when
 * util-linux's prlimit is installed; Debian has it), killed with SIGKILL — the whole group — at
 * the time limit. Resolves with how it ended; only a failure to start rejects.
 */
export function runProgram(program: string, args: readonly string[], limits: ProgramLimits, cwd: string): Promise<ProgramResult> {
  const [command, argv] = PRLIMIT
    ? [
        PRLIMIT,
        [
          `--as=${limits.maxMemoryBytes}`,
          `--cpu=${limits.maxCpuSeconds}`,
          `--fsize=${limits.maxOutputBytes}`,
          '--core=0',
          '--',
          program,
          ...args,
        ],
      ]
    : [program, [...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    });
    let stderr = '';
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < STDOUT_KEPT) stdout += chunk.slice(0, STDOUT_KEPT - stdout.length);
    });
    let timedOut = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.slice(0, STDERR_KEPT - stderr.length);
    });
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, limits.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
