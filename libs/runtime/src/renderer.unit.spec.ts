import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rendererUser } from './renderer.ts';

const passwd = (lines: string[]) => {
  const file = join(mkdtempSync(join(tmpdir(), 'passwd-')), 'passwd');
  writeFileSync(file, lines.join('\n'));
  return file;
};
const withNobody = passwd([
  'root:x:0:0:root:/root:/bin/bash',
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
  'render:x:999:998::/:/bin/false',
]);
const withoutNobody = passwd(['root:x:0:0:root:/root:/bin/bash']);

describe('rendererUser: whom the renderer host (and Chromium) runs as', () => {
  it('drops a root service to nobody by default, so the Chromium sandbox can start', () => {
    expect(rendererUser(undefined, true, withNobody)).toEqual({ uid: 65534, gid: 65534 });
  });
  it('uses the configured user, and fails at start for one that does not exist', () => {
    expect(rendererUser('render', true, withNobody)).toEqual({ uid: 999, gid: 998 });
    expect(() => rendererUser('ghost', true, withNobody)).toThrow(/no user named "ghost"/);
  });
  it('keeps root only when told to, or when the machine has no nobody', () => {
    expect(rendererUser('root', true, withNobody)).toBeUndefined();
    expect(rendererUser(undefined, true, withoutNobody)).toBeUndefined();
  });
  it('leaves a non-root service as itself', () => {
    expect(rendererUser(undefined, false, withNobody)).toBeUndefined();
  });
});
