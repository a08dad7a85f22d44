import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const runTs = new URL('./run-ts.mjs', import.meta.url).pathname;
const TUNING = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '32768', MALLOC_TRIM_THRESHOLD_: '131072' };
// Where the Node running the tests can start again in place (22.15 and later), the apps get the
// allocator's settings; elsewhere (Node 20) they start as before.
const tunes = process.platform === 'linux' && typeof (process as { execve?: unknown }).execve === 'function';

/** Runs an entry through run-ts.mjs as `npm start` does; the entry reports what its process sees. */
async function start(env: Record<string, string>, nodeArgs: string[] = []) {
  const dir = await mkdtemp(join(tmpdir(), 'run-ts-'));
  const entry = join(dir, 'entry.ts');
  await writeFile(
    entry,
    `const seen: Record<string, string | undefined> = {};
for (const name of ${JSON.stringify(Object.keys(TUNING))}) seen[name] = process.env[name];
console.log(JSON.stringify({ pid: process.pid, argv: process.argv.slice(1), execArgv: process.execArgv, seen }));
`,
  );
  const child = execFile(process.execPath, [...nodeArgs, runTs, entry, '--flag', 'value'], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  const out = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (c: Buffer) => (text += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
  });
  return {
    spawnedPid: child.pid,
    entry,
    ...(JSON.parse(out.trim()) as { pid: number; argv: string[]; execArgv: string[]; seen: Record<string, string | undefined> }),
  };
}

const UNSET = Object.fromEntries(Object.keys(TUNING).map((name) => [name, undefined]));

describe('run-ts.mjs: the apps start with memory settings that collect garbage before it piles up and give freed memory back', () => {
  it("sets V8's heap growing factor and glibc's allocator in the same process (same pid), the entry and its arguments as given", async () => {
    const r = await start({});
    expect(r.pid).toBe(r.spawnedPid);
    expect(r.argv).toEqual([r.entry, '--flag', 'value']);
    expect(r.seen).toEqual(tunes ? TUNING : UNSET);
    expect(r.execArgv).toEqual(tunes ? ['--heap-growing-percent=50'] : []);
  });

  it("keeps an operator's own values (a variable, the flag on node's command line), and sets nothing with PRESSROOM_MEMORY_TUNING=off", async () => {
    const own = await start({ MALLOC_ARENA_MAX: '4' }, ['--heap_growing_percent=80']);
    expect(own.seen.MALLOC_ARENA_MAX).toBe('4');
    expect(own.seen.MALLOC_MMAP_THRESHOLD_).toBe(tunes ? '32768' : undefined);
    expect(own.execArgv).toEqual(['--heap_growing_percent=80']);
    const off = await start({ PRESSROOM_MEMORY_TUNING: 'off' });
    expect(off.seen).toEqual(UNSET);
    expect(off.execArgv).toEqual([]);
    expect(off.pid).toBe(off.spawnedPid);
  });
});
