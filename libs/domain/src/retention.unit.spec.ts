import { describe, expect, it } from 'vitest';
import {
  ID_CLOCK_SKEW_MS,
  expiredRenders,
  isExpired,
  parseRetention,
  renderOfObjectKey,
  requestIdTime,
  retentionPolicy,
  tooYoungToExpire,
} from './retention.ts';

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

describe('tooYoungToExpire (what a sweep leaves out unread)', () => {
  const DAY = 86_400_000;
  // A UUIDv7 made at `ms`: its first 48 bits are the time.
  const idAt = (ms: number) => {
    const hex = ms.toString(16).padStart(12, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8)}-7d3e-9f10-2b4c6d8e0a10`;
  };
  const now = new Date(Date.UTC(2026, 10, 28, 12));

  it('reads the time of a UUIDv7 id, and none from another kind of id', () => {
    expect(requestIdTime(idAt(now.getTime()))).toBe(now.getTime());
    expect(requestIdTime(R1)).toBe(0x019a9b5e7c1a);
    expect(requestIdTime('3b241101-e2bb-4255-8caf-4136c566a962')).toBeUndefined(); // v4
    expect(requestIdTime('not-an-id')).toBeUndefined();
  });

  it('leaves out the files of a render made less than the shortest retention (less the clock skew) ago', () => {
    const policy = { standard: 30 * DAY, high: 90 * DAY };
    const young = idAt(now.getTime() - 29 * DAY);
    expect(tooYoungToExpire({ now, policy })(`acme/${young}.pdf`)).toBe(true);
    expect(tooYoungToExpire({ now, policy })(`acme/${young}.request.json`)).toBe(true);
    expect(tooYoungToExpire({ now, policy })(`acme/${young}/part-1.pdf`)).toBe(true);
    // At the edge the skew keeps it in: its files may have been stored by a clock ahead of the id's.
    const edge = idAt(now.getTime() - 30 * DAY + ID_CLOCK_SKEW_MS);
    expect(tooYoungToExpire({ now, policy })(`acme/${edge}.pdf`)).toBe(false);
    expect(tooYoungToExpire({ now, policy })(`acme/${idAt(now.getTime() - 31 * DAY)}.pdf`)).toBe(false);
  });

  it("is never sure when the id carries no time, the key is not a render's, or nothing expires", () => {
    const policy = { standard: 30 * DAY };
    expect(tooYoungToExpire({ now, policy })('acme/3b241101-e2bb-4255-8caf-4136c566a962.pdf')).toBe(false);
    expect(tooYoungToExpire({ now, policy })('acme/assets/logo.png')).toBe(false);
    expect(tooYoungToExpire({ now, policy: {} })(`acme/${idAt(now.getTime())}.pdf`)).toBe(false);
  });

  it("a retention shorter than the clock skew leaves nothing out (the tests' seconds-long plans)", () => {
    expect(tooYoungToExpire({ now, policy: { standard: 2000 } })(`acme/${idAt(now.getTime())}.pdf`)).toBe(false);
  });
});
