import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

describe('schemas/json', () => {
  it('matches the TypeBox definitions (run `npm run schemas:generate` after changing them)', async () => {
    const { stdout } = await promisify(execFile)(join(root, 'node_modules', '.bin', 'tsx'), [
      join(root, 'schemas', 'scripts', 'generate.ts'),
      '--check',
    ]);
    expect(stdout).toContain('up to date');
  }, 60_000); // starts tsx in a child process: seconds on a busy machine
});
