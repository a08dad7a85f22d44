import { describe, expect, it } from 'vitest';
import { ChromiumNotFoundError, resolveChromiumPath } from './chromium-path.ts';

const only =
  (...present: string[]) =>
  (path: string) =>
    present.includes(path);

describe('resolveChromiumPath', () => {
  it('uses the configured path when it is executable', () => {
    expect(resolveChromiumPath('/opt/chrome/chrome', only('/opt/chrome/chrome', '/usr/bin/chromium'))).toBe('/opt/chrome/chrome');
  });

  it('fails clearly when the configured path holds no executable, without falling back', () => {
    expect(() => resolveChromiumPath('/opt/missing', only('/usr/bin/chromium'))).toThrow(ChromiumNotFoundError);
    expect(() => resolveChromiumPath('/opt/missing', only('/usr/bin/chromium'))).toThrow(/\/opt\/missing/);
  });

  it("prefers Debian's headless shell binary, then its launcher, then chromium", () => {
    const all = [
      '/usr/lib/chromium/chromium-headless-shell',
      '/usr/bin/chromium-headless-shell',
      '/usr/lib/chromium/chromium',
      '/usr/bin/chromium',
    ];
    expect(resolveChromiumPath(undefined, only(...all))).toBe('/usr/lib/chromium/chromium-headless-shell');
    expect(resolveChromiumPath(undefined, only(...all.slice(1)))).toBe('/usr/bin/chromium-headless-shell');
    expect(resolveChromiumPath(undefined, only(...all.slice(2)))).toBe('/usr/lib/chromium/chromium');
    expect(resolveChromiumPath(undefined, only('/usr/bin/chromium'))).toBe('/usr/bin/chromium');
  });

  it('says how to install Chromium when none is found', () => {
    expect(() => resolveChromiumPath(undefined, only())).toThrow(/infra\/chromium\/ensure\.sh/);
  });
});
