import { describe, expect, it } from 'vitest';
import { expiredRenders, isExpired, parseRetention, renderOfObjectKey, retentionPolicy } from './retention.ts';

const R1 = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10';
const R2 = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a11';
const R3 = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a12';
const R4 = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a13';
const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s));

describe('renderOfObjectKey', () => {
  it('finds the render of a file, its debug report and its tool outputs; not of assets or uploads', () => {
    expect(renderOfObjectKey(`acme/${R1}.pdf`)).toEqual({ tenantId: 'acme', requestId: R1 });
    expect(renderOfObjectKey(`acme/${R1}.PNG`)).toEqual({ tenantId: 'acme', requestId: R1 });
    expect(renderOfObjectKey(`acme/${R1}.pdf.debug.json`)).toEqual({ tenantId: 'acme', requestId: R1 });
    expect(renderOfObjectKey(`acme/${R1}/part-2.pdf`)).toEqual({ tenantId: 'acme', requestId: R1 });
    expect(renderOfObjectKey('acme/assets/logo.png')).toBeUndefined();
    expect(renderOfObjectKey('acme/uploads/u/a.pdf')).toBeUndefined();
    expect(renderOfObjectKey(`${R1}.pdf`)).toBeUndefined();
  });
});

describe('isExpired', () => {
  it('expires an object once its retention has passed; never without a retention', () => {
    expect(isExpired({ lastModified: at(0), now: at(9), retentionMs: 10_000 })).toBe(false);
    expect(isExpired({ lastModified: at(0), now: at(10), retentionMs: 10_000 })).toBe(true);
    expect(isExpired({ lastModified: at(0), now: at(59), retentionMs: undefined })).toBe(false);
  });
});

describe('expiredRenders', () => {
  it("removes whole renders of plans with a retention, keeps other plans' and unknown tenants' files", () => {
    const objects = [
      { key: `high/${R1}.pdf`, lastModified: at(0) },
      { key: `high/${R1}.pdf.debug.json`, lastModified: at(1) },
      { key: `high/${R2}.pdf`, lastModified: at(8) }, // younger than the retention
      { key: 'high/assets/logo.png', lastModified: at(0) },
      { key: `std/${R1}.pdf`, lastModified: at(0) },
      { key: `ghost/${R1}.pdf`, lastModified: at(0) },
    ];
    const plans: Record<string, 'high' | 'standard'> = { high: 'high', std: 'standard' };
    const out = expiredRenders(objects, { now: at(10), policy: { high: 5000 }, planOf: (t) => plans[t] });
    expect(out).toEqual([{ tenantId: 'high', requestId: R1, keys: [`high/${R1}.pdf`, `high/${R1}.pdf.debug.json`], payloadOnly: false }]);
  });

  it("counts the retention from the render's own files, not from its stored payload; a payload alone is flagged", () => {
    const objects = [
      // accepted at 0, rendered at 8: its file is younger than the retention, the old payload does not count
      { key: `high/${R1}.payload.json`, lastModified: at(0) },
      { key: `high/${R1}.pdf`, lastModified: at(8) },
      // accepted at 0, not rendered (yet): expired, but only its payload is there
      { key: `high/${R2}.payload.json`, lastModified: at(0) },
      // accepted at 1, rendered at 2: expired, payload and file go together
      { key: `high/${R3}.payload.json`, lastModified: at(1) },
      { key: `high/${R3}.pdf`, lastModified: at(2) },
      // accepted at 8: neither
      { key: `high/${R4}.payload.json`, lastModified: at(8) },
    ];
    const out = expiredRenders(objects, { now: at(10), policy: { high: 5000 }, planOf: () => 'high' });
    expect(out).toEqual([
      { tenantId: 'high', requestId: R2, keys: [`high/${R2}.payload.json`], payloadOnly: true },
      { tenantId: 'high', requestId: R3, keys: [`high/${R3}.payload.json`, `high/${R3}.pdf`], payloadOnly: false },
    ]);
  });
});

describe('parseRetention and retentionPolicy', () => {
  it('reads a duration or forever, and refuses anything else, naming it', () => {
    expect(parseRetention('7d')).toBe(7 * 86_400_000);
    expect(parseRetention('2s')).toBe(2000);
    expect(parseRetention('forever')).toBeUndefined();
    expect(() => parseRetention('1w')).toThrow(/"1w"/);
    expect(() => parseRetention('0s')).toThrow(/"0s"/);
    expect(() => parseRetention('')).toThrow(/is not a retention/);
  });

  it("is each plan's retention, a plan kept forever left out", () => {
    expect(retentionPolicy({ standard: { retention: '30d' }, high: { retention: 'forever' } })).toEqual({ standard: 30 * 86_400_000 });
    expect(retentionPolicy({ standard: { retention: '2s' }, high: { retention: '90d' } })).toEqual({
      standard: 2000,
      high: 90 * 86_400_000,
    });
  });
});
