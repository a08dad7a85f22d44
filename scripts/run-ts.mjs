// Runs one of the apps' TypeScript entry points: `node scripts/run-ts.mjs apps/<app>/src/main.ts [args]`.
//
// Where Node strips types itself (Node >= 22.18: process.features.typescript), the sources run as
// they are, with no transpiler in the process: the start no longer pays for loading and
// transforming every module through tsx (1-3 s on a 2-core machine, more under load). Elsewhere
// (Node 20) tsx's loader is registered in this process first. The code is written in the syntax
// Node can strip (`erasableSyntaxOnly` in tsconfig.base.json), so both paths run the same files.
import { resolve } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node scripts/run-ts.mjs <entry.ts> [args...]\n');
  process.exit(2);
}

// Memory settings read only at process start, so the process starts again in place with them
// (execve: same pid, same stdio), before anything else runs. The soak (README, Soak) found the
// service's RSS stepping up at its largest garbage collections and never coming back:
// - V8 let its old generation grow to several times what survived the last full collection
//   before the next (a factor of up to 4 while collections look cheap): a render's objects still
//   referenced when a scavenge came (request bodies, log records, buffers) were promoted and piled
//   up as garbage, and the pages that peak took stayed resident. A growing factor of 1.5
//   (--heap-growing-percent=50) collects sooner, at a smaller peak: the app's RSS stayed flat.
// - glibc gives each thread that allocates an arena of its own (V8's GC and compiler threads,
//   libuv's pool) and keeps what they free, and raises its mmap threshold to the largest block
//   freed so far. Two arenas, a fixed mmap threshold (PDFs and socket buffers of 32 KB and more are
//   mapped and unmapped) and a low trim threshold keep less (the arenas of threads: 34 -> 12 MB).
// What the operator set (the variables, or the flag on node's command line) wins;
// PRESSROOM_MEMORY_TUNING=off sets none of it. Not on Node 20 (no process.execve); the variables
// are ignored where the C library is not glibc.
const MALLOC_TUNING = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '32768', MALLOC_TRIM_THRESHOLD_: '131072' };
const V8_TUNING = ['--heap-growing-percent=50'];
const ownFlags = process.execArgv.map((a) => a.replaceAll('_', '-'));
// Node >= 22.15 (typed here: the project's @types/node is Node 20's).
const execve = /** @type {{ execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }} */ (process).execve;
const missingFlags = V8_TUNING.filter((flag) => !ownFlags.some((a) => a.startsWith(flag.slice(0, flag.indexOf('=')))));
if (
  process.platform === 'linux' &&
  typeof execve === 'function' &&
  process.env.PRESSROOM_MEMORY_TUNING !== 'off' &&
  (missingFlags.length > 0 || Object.keys(MALLOC_TUNING).some((name) => process.env[name] === undefined))
) {
  try {
    execve.call(process, process.execPath, [process.execPath, ...missingFlags, ...process.execArgv, ...process.argv.slice(1)], {
      ...MALLOC_TUNING,
      ...process.env,
    });
  } catch (err) {
    process.stderr.write(`run-ts: starting with the memory settings failed, going on without them: ${String(err)}\n`);
  }
}
// The app sees the argv it would have under `node <entry> args…` (the ops CLI parses it).
process.argv.splice(1, 2, resolve(entry));

if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(pathToFileURL(resolve(entry)).href);
