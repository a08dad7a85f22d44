import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const prestart = join(import.meta.dirname, '..', 'infra', 'prestart.sh');

/**
 * `npm start`'s prestart on a machine without Debian's apt (Alpine, macOS, a distroless image): with
 * CHROMIUM_PATH given it must never stop the start (exit 0) nor try to install anything. Its PATH
 * holds only what the script needs, so no apt-get, qpdf or gs is found.
 */
describe('npm start without apt (infra/prestart.sh)', () => {
  let bin: string;
  let chromium: string;
  beforeAll(async () => {
    bin = await mkdtemp(join(tmpdir(), 'pressroom-noapt-'));
    for (const tool of ['bash', 'dirname']) await symlink(`/usr/bin/${tool}`, join(bin, tool));
    chromium = join(bin, 'my-chromium');
    await writeFile(chromium, '#!/bin/sh\nexit 0\n');
    await chmod(chromium, 0o755);
  });
  afterAll(async () => {
    await rm(bin, { recursive: true, force: true });
  });

  const prestartWith = (env: Record<string, string>) =>
    run(join(bin, 'bash'), [prestart], { env: { PATH: bin, ...env } }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it('lets the start go on with CHROMIUM_PATH, saying only what else is missing', async () => {
    const r = await prestartWith({ CHROMIUM_PATH: chromium });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('CHROMIUM_PATH');
    expect(r.stderr).toContain('qpdf or ghostscript missing and no apt-get');
    expect(r.stdout).toBe('');
  });

  it('warns about a CHROMIUM_PATH that is not executable, and still does not stop the start', async () => {
    const r = await prestartWith({ CHROMIUM_PATH: join(bin, 'nope') });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('is not an executable file');
  });

  it('without CHROMIUM_PATH and without apt, says how to give one', async () => {
    const r = await prestartWith({});
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('set CHROMIUM_PATH');
  });
});
