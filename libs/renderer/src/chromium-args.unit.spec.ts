import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumArgs, PLAYWRIGHT_DISABLED_FEATURES, PRESSROOM_DISABLED_FEATURES } from './chromium-args.ts';

/** The `disabledFeatures = [ … ]` list of the installed Playwright's Chromium switches. */
function installedPlaywrightDisabledFeatures(): string[] {
  const root = dirname(createRequire(import.meta.url).resolve('playwright-core/package.json'));
  const bundle = readFileSync(join(root, 'lib', 'coreBundle.js'), 'utf8');
  const list = /disabledFeatures = \[([\s\S]*?)\]/.exec(bundle)?.[1] ?? '';
  return [...list.matchAll(/^\s*"([A-Za-z0-9]+)",?\s*$/gm)].map((m) => m[1]!);
}

describe('chromiumArgs', () => {
  it("repeats Playwright's disabled features in its one --disable-features (Chromium reads only the last)", () => {
    expect(installedPlaywrightDisabledFeatures()).toEqual([...PLAYWRIGHT_DISABLED_FEATURES]);
    const switches = chromiumArgs().filter((a) => a.startsWith('--disable-features='));
    expect(switches).toHaveLength(1);
    expect(switches[0]!.slice('--disable-features='.length).split(',')).toEqual([
      ...PLAYWRIGHT_DISABLED_FEATURES,
      ...PRESSROOM_DISABLED_FEATURES,
    ]);
  });
});
