// Runs the Dockerfile's build steps on this machine (no Docker engine needed), each stage in its own
// temporary root: ARG, FROM … AS, ENV, WORKDIR, COPY [--from=stage] and RUN are carried out with the
// same commands (RUN through `sh -c` in the stage's WORKDIR); a RUN preceded by `# check: <cmd>`
// changes the machine itself (apt, users), so <cmd> runs instead and proves the same without changing it.
// Then it runs the image's ENTRYPOINT the way `docker run` would: help, a typo, and the embedded app up
// to a 200 from /readyz. Exits non-zero on the first failing step.
//   npx tsx scripts/check-dockerfile.ts [--keep]      (CI: .ci/run, phase "image")
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const context = resolve(import.meta.dirname, '..');
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'pressroom-image-'));
// Readable by all: run as root here, the service starts its renderer as `nobody` (in the image it is user 10001).
chmodSync(work, 0o755);

interface Stage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  entrypoint?: string[];
  cmd?: string[];
}

/** Dockerfile instructions with their continuation lines joined, and the `# check:` line before each. */
function instructions(text: string): { op: string; args: string; check?: string }[] {
  const out: { op: string; args: string; check?: string }[] = [];
  let check: string | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] ?? '';
    const trimmed = line.trim();
    if (trimmed.startsWith('# check:')) {
      check = trimmed.slice('# check:'.length).trim();
      continue;
    }
    if (!trimmed || trimmed.startsWith('#')) continue;
    while (line.trimEnd().endsWith('\\') && i + 1 < lines.length) line = line.trimEnd().slice(0, -1) + ' ' + (lines[++i] ?? '').trim();
    const m = /^(\w+)\s+(.*)$/.exec(line.trim());
    if (!m) throw new Error(`cannot read Dockerfile line: ${line}`);
    out.push({ op: m[1]!.toUpperCase(), args: m[2]!.trim(), ...(check ? { check } : {}) });
    check = undefined;
  }
  return out;
}

const args: Record<string, string> = {};
const expand = (s: string) => s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a?: string, b?: string) => args[(a ?? b)!] ?? '');
/** KEY=value pairs (values may be quoted). */
const pairs = (s: string) => Object.fromEntries([...s.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/^"|"$/g, '')]));
const inRoot = (stage: Stage, p: string) => (p.startsWith('/') ? join(stage.root, p) : join(stage.root, stage.workdir, p));

function step(title: string, cmd: string, stage: Stage): void {
  process.stdout.write(`\n--- [${stage.name}] ${title}\n$ ${cmd}\n`);
  const cwd = join(stage.root, stage.workdir);
  mkdirSync(cwd, { recursive: true });
  const r = spawnSync('sh', ['-c', cmd], { cwd, stdio: 'inherit', env: { ...process.env, ...stage.env } });
  if (r.status !== 0) throw new Error(`[${stage.name}] step failed (exit ${r.status}): ${cmd}`);
}

const stages = new Map<string, Stage>();
let stage: Stage | undefined;
const t0 = Date.now();
for (const ins of instructions(readFileSync(join(context, 'Dockerfile'), 'utf8'))) {
  if (ins.op === 'ARG') {
    const m = /^(\w+)(?:=(.*))?$/.exec(ins.args);
    if (m) args[m[1]!] = m[2] ?? args[m[1]!] ?? '';
    continue;
  }
  if (ins.op === 'FROM') {
    const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
    const name = m?.[2] ?? `stage${stages.size}`;
    stage = { name, root: join(work, name), workdir: '/', env: {} };
    mkdirSync(stage.root, { recursive: true });
    stages.set(name, stage);
    process.stdout.write(`\n=== stage ${name} (FROM ${expand(m?.[1] ?? ins.args)}; this machine: Node ${process.version})\n`);
    continue;
  }
  if (!stage) throw new Error(`${ins.op} before FROM`);
  switch (ins.op) {
    case 'ENV':
      Object.assign(stage.env, pairs(expand(ins.args)));
      break;
    case 'WORKDIR':
      stage.workdir = expand(ins.args);
      mkdirSync(join(stage.root, stage.workdir), { recursive: true });
      break;
    case 'COPY': {
      const parts = expand(ins.args).split(/\s+/);
      const from = parts[0]?.startsWith('--from=') ? stages.get(parts.shift()!.slice('--from='.length)) : undefined;
      if (parts.some((p) => p.startsWith('--'))) throw new Error(`COPY flag not supported by the check: ${ins.args}`);
      const dest = parts.pop()!;
      for (const src of parts) {
        const source = from ? join(from.root, src) : join(context, src);
        const target = dest.endsWith('/') ? join(inRoot(stage, dest), src.split('/').pop()!) : inRoot(stage, dest);
        mkdirSync(dirname(target), { recursive: true });
        // The build context skips what .dockerignore lists; node_modules is the one that matters here.
        cpSync(source, target, {
          recursive: true,
          verbatimSymlinks: true,
          filter: (p) => from !== undefined || !p.includes('/node_modules'),
        });
      }
      process.stdout.write(`--- [${stage.name}] COPY ${ins.args}\n`);
      break;
    }
    case 'RUN':
      if (ins.check) step(`RUN ${ins.args}\n    (changes the machine; the check runs instead)`, ins.check, stage);
      else step(`RUN`, expand(ins.args), stage);
      break;
    case 'USER':
      stage.user = ins.args;
      break;
    case 'ENTRYPOINT':
      stage.entrypoint = JSON.parse(ins.args) as string[];
      break;
    case 'CMD':
      stage.cmd = JSON.parse(ins.args) as string[];
      break;
    case 'EXPOSE':
    case 'VOLUME':
    case 'LABEL':
      break;
    default:
      throw new Error(`instruction not supported by the check: ${ins.op}`);
  }
}

const image = stage!;
if (!image.user || /^(0|root)(:|$)/.test(image.user))
  throw new Error(`the image must run as a non-root USER (got ${image.user ?? 'none'})`);
if (!image.entrypoint) throw new Error('the image has no ENTRYPOINT');
const entry = inRoot(image, image.entrypoint[0]!);
const chromium = image.env.CHROMIUM_PATH;
if (!chromium || spawnSync(chromium, ['--version']).status !== 0) throw new Error(`CHROMIUM_PATH ${chromium} does not run here`);

// The image's /data is this run's own folder (never the machine's /data).
const dataDir = join(work, 'data');
function run(argv: string[]) {
  const r = spawnSync(entry, argv, { env: { ...process.env, ...image.env, PRESSROOM_DATA_DIR: dataDir }, encoding: 'utf8' });
  process.stdout.write(
    `\n$ pressroom ${argv.join(' ')}  → exit ${r.status}\n${(r.stdout + r.stderr).split('\n').slice(0, 4).join('\n')}\n`,
  );
  return r;
}
const expect = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`image check failed: ${what}`);
};
expect(run(['ops', '--help']).status === 0, '`pressroom ops --help` exits 0');
expect(run(['nope']).status === 2, '`pressroom nope` exits 2');
expect(run(['ops', 'statsu', 'rebuild']).status === 2, '`pressroom ops statsu rebuild` exits 2');

// The default command (the embedded service) starts from the built tree and answers /readyz.
const port = await new Promise<number>((res) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => res(p));
  });
});
const child = spawn(entry, image.cmd ?? [], {
  env: { ...process.env, ...image.env, PORT: String(port), PRESSROOM_DATA_DIR: dataDir, PRESSROOM_API_KEY: 'prk_image_check' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
let ready = false;
for (let i = 0; i < 120 && !ready && child.exitCode === null; i++) {
  await new Promise((r) => setTimeout(r, 500));
  ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
    (r) => r.status === 200,
    () => false,
  );
}
child.kill('SIGTERM');
await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
expect(ready, `\`pressroom ${(image.cmd ?? []).join(' ')}\` answers 200 on /readyz`);
process.stdout.write(`\n$ pressroom ${(image.cmd ?? []).join(' ')}  → GET /readyz 200\n`);

if (!keep) rmSync(work, { recursive: true, force: true });
process.stdout.write(`\nDockerfile steps OK in ${((Date.now() - t0) / 1000).toFixed(1)} s${keep ? ` (kept in ${work})` : ''}\n`);
