import { ASSET_ORIGIN } from '@pressroom/core';
import { describe, expect, it } from 'vitest';
import { readerSvg, STORAGE_KINDS, writerSvg } from '../../../test/support/storage-probe.ts';
import { memoryAssets } from './test-support/assets.ts';
import { RUNTIME_GLOBAL } from './in-page/runtime-contract.ts';
import { suiteWarmPage } from './test-support/suite-warm-page.ts';

// The reset between two jobs, seen from inside: a document of the assets origin that became the
// top-level document (a navigation the job is refused for, but which ran) is a secure context and
// can use every kind of storage, Cache Storage included. None of it may survive the reset.
describe('warm page reset', () => {
  const page = suiteWarmPage();

  const probe = async (name: string): Promise<string> => {
    const { wp } = page();
    await wp.page.goto(`${ASSET_ORIGIN}/${name}`);
    await wp.page.waitForFunction(() => typeof (window as { probeResult?: unknown }).probeResult === 'string', undefined, {
      timeout: 10_000,
    });
    return wp.page.evaluate(() => String((window as { probeResult?: unknown }).probeResult));
  };

  it('forgets every kind of storage a top-level document of the assets origin wrote', async () => {
    const { wp, lifecycle } = page();
    // Given the page became a document of the assets origin, which wrote every kind of storage
    wp.assets = memoryAssets({
      'writer.svg': { bytes: writerSvg('TENANT-A-SECRET'), contentType: 'image/svg+xml' },
      'reader.svg': { bytes: readerSvg(), contentType: 'image/svg+xml' },
    });
    const written = await probe('writer.svg');
    for (const kind of STORAGE_KINDS) expect(written, `could not write ${kind}`).toContain(kind);

    // When the page is reset for the next job, and that job's document of the same origin reads
    await lifecycle.reset(wp);
    const read = await probe('reader.svg');

    // Then it finds none of it
    expect(read).not.toContain('TENANT-A-SECRET');
    for (const kind of STORAGE_KINDS) expect(read).toContain(`"${kind}":null`);
  });

  it("gives every job's document the template runtime in the main frame only, and a cleared window.name", async () => {
    const { wp, lifecycle } = page();
    // Given a job left a name on the window
    await wp.page.evaluate(() => {
      window.name = 'TENANT-A';
    });

    // When the page is reset and the next job's document has a frame
    await lifecycle.reset(wp);
    await wp.page.setContent('<iframe srcdoc="<p>frame</p>"></iframe>');
    await wp.page.frames()[1]!.waitForLoadState();
    const seen = await wp.page.evaluate((name) => {
      const frame = document.querySelector('iframe')!.contentWindow as unknown as Record<string, unknown>;
      return { main: typeof (window as unknown as Record<string, unknown>)[name], frame: typeof frame[name], windowName: window.name };
    }, RUNTIME_GLOBAL);

    // Then the runtime is there for the template, the name is gone, and the tenant's frame has no runtime
    expect(seen).toEqual({ main: 'object', frame: 'undefined', windowName: '' });
  });
});
