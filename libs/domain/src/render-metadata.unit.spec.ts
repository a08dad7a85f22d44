import { describe, expect, it } from 'vitest';
import { formatRenderMetadata } from './render-metadata.ts';
import { artifactKey } from './artifact-key.ts';

describe('formatRenderMetadata', () => {
  it('uses the spec formats', () => {
    expect(formatRenderMetadata(1234, 61_234)).toEqual({ executionTime: '1.234 seconds', fileSize: '61.23 kB' });
    expect(formatRenderMetadata(0, 0)).toEqual({ executionTime: '0 seconds', fileSize: '0 kB' });
  });
});

describe('artifactKey', () => {
  it('derives the key from the request, so a retried render overwrites one file', () => {
    const args = { tenantId: 't1', requestId: 'r1', output: 'pdf' as const, target: { kind: 'default' as const } };
    expect(artifactKey(args)).toBe('t1/r1.pdf');
    expect(artifactKey({ ...args, output: 'png' })).toBe('t1/r1.PNG');
    expect(artifactKey({ ...args, target: { kind: 's3-connection', connectionId: 'c', key: 'a/b/inv' } })).toBe('a/b/inv.pdf');
    expect(artifactKey({ ...args, target: { kind: 's3-connection', connectionId: 'c' } })).toBe('r1.pdf');
  });
});
