import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const script = join(import.meta.dirname, '..', 'scripts', 'ci-failure-summary.sh');

// CI's record keeps only the tail of `.ci/run`'s output: what failed must be repeated at its end,
// for the tests and for the phases after them (the Node 20 check) or before them (the image check).
describe('CI failure summary (the end of .ci/run)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pressroom-ci-logs-'));
    const vitest = [
      ' \x1b[32m✓\x1b[39m unit libs/a.unit.spec.ts (3 tests)',
      ' FAIL  int test/e2e/x.e2e.spec.ts > x > answers',
      'AssertionError: expected 500 to be 200',
      ...Array.from({ length: 40 }, (_, i) => `   noise ${i}`),
    ];
    await writeFile(join(dir, 'test.log'), vitest.join('\n'));
    await writeFile(join(dir, 'node20.log'), [' FAIL  unit libs/b.unit.spec.ts > b', 'Error: boom'].join('\n'));
    await writeFile(
      join(dir, 'image.log'),
      [...Array.from({ length: 100 }, (_, i) => `step ${i}`), 'check-dockerfile: npm ci failed (exit 1)'].join('\n'),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("repeats each failed phase's failed tests, or the end of its output, in the order given", async () => {
    const { stdout } = await run('bash', [script, dir, 'image', 'test', 'node20', 'deps']);
    const image = stdout.indexOf('=== [ci] image failed: last 25 lines');
    const test = stdout.indexOf('=== [ci] test failed: failed tests');
    const node20 = stdout.indexOf('=== [ci] node20 failed: failed tests');
    expect([image, test, node20].every((i) => i >= 0)).toBe(true);
    expect(image < test && test < node20).toBe(true);
    expect(stdout).toContain('check-dockerfile: npm ci failed (exit 1)');
    expect(stdout).not.toContain('step 10\n');
    expect(stdout).toContain('FAIL  int test/e2e/x.e2e.spec.ts > x > answers\nAssertionError: expected 500 to be 200');
    expect(stdout).not.toContain('noise 10');
    expect(stdout).not.toContain('\x1b[');
    expect(stdout).toContain('FAIL  unit libs/b.unit.spec.ts > b\nError: boom');
    expect(stdout).not.toContain('deps'); // no log: nothing to say
  });

  it('prints nothing when no failed phase has a log', async () => {
    expect((await run('bash', [script, dir, 'tools'])).stdout).toBe('');
  });
});
