import { describe, expect, it } from 'vitest';
import { createToolInputs, documentUrlProblem, type PinnedGet } from './tool-inputs.ts';
import { PdfToolFailure } from './ports/pdf-toolkit.ts';

const OWN = 'http://127.0.0.1:3000/v1/files/t1/uploads/u/a.pdf?sig=ok';
const OTHER_TENANT = 'http://127.0.0.1:3000/v1/files/t2/uploads/u/a.pdf?sig=ok';
const storage = {
  classifyUrl: (tenantId: string, url: string) =>
    url === OWN && tenantId === 't1'
      ? ({ kind: 'own', key: 't1/uploads/u/a.pdf' } as const)
      : url === OTHER_TENANT
        ? ({ kind: 'foreign-own' } as const)
        : ({ kind: 'external' } as const),
  readOwn: async (key: string, max: number) =>
    key === 't1/uploads/u/a.pdf' ? (max < 3 ? ('too-large' as const) : new Uint8Array([1, 2, 3])) : undefined,
};
const dns: Record<string, string[]> = {
  'files.example.com': ['93.184.216.34'],
  'rebind.example.com': ['93.184.216.34', '10.0.0.5'],
  'meta.example.com': ['169.254.169.254'],
};
const lookup = async (host: string) => (dns[host] ?? []).map((address) => ({ address }));

describe('document URLs of the PDF tools', () => {
  it.each([
    ['file:///etc/passwd', 'https'],
    ['http://files.example.com/a.pdf', 'https'],
    ['https://127.0.0.1/a.pdf', 'address'],
    ['https://[::1]/a.pdf', 'address'],
    ['https://169.254.169.254/latest/meta-data', 'address'],
    ['https://meta.example.com/a.pdf', 'address'],
    ['https://rebind.example.com/a.pdf', 'address'],
    ['https://user:pw@files.example.com/a.pdf', 'credentials'],
    ['https://nowhere.example.com/a.pdf', 'resolve'],
    [OTHER_TENANT, 'not yours'],
  ])('refuses %s', async (url, why) => {
    const problem = await documentUrlProblem('url', url, 't1', { storage, lookup });
    expect(problem?.field).toBe('url');
    expect(problem?.message).toContain(why);
  });

  it('takes a public https URL and our own link', async () => {
    expect(await documentUrlProblem('url', 'https://files.example.com/a.pdf', 't1', { storage, lookup })).toBeUndefined();
    expect(await documentUrlProblem('url', OWN, 't1', { storage, lookup })).toBeUndefined();
  });

  it('reads our own links from storage, never from the network, and bounds every read', async () => {
    const fetched: string[] = [];
    const fetch: PinnedGet = async (req) => {
      fetched.push(`${req.url.host}@${req.addresses.join(',')}`);
      return { status: 200, body: new Uint8Array(2) };
    };
    const inputs = createToolInputs({ storage, fetch, maxBytes: 10, timeoutMs: 1000, lookup });
    expect(await inputs.read('t1', OWN)).toEqual(new Uint8Array([1, 2, 3]));
    expect(fetched).toEqual([]);
    await inputs.read('t1', 'https://files.example.com/a.pdf');
    expect(fetched).toEqual(['files.example.com@93.184.216.34']);
    const small = createToolInputs({ storage, fetch, maxBytes: 2, timeoutMs: 1000, lookup });
    const err = await small.read('t1', OWN).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PdfToolFailure);
    expect((err as PdfToolFailure).code).toBe('INPUT_UNAVAILABLE');
    const refused = await inputs.read('t1', 'https://meta.example.com/a.pdf').catch((e: unknown) => e);
    expect((refused as PdfToolFailure).code).toBe('INPUT_UNAVAILABLE');
    expect(fetched).toHaveLength(1);
  });
});
