import { silentLogger } from '@pressroom/core';
import { afterAll, beforeAll } from 'vitest';
import { BrowserHost } from '../browser-host.ts';
import { chromiumArgs } from '../chromium-args.ts';
import { resolveChromiumPath } from '../chromium-path.ts';
import { pageRuntimeScript } from '../eta-bundle.ts';
import { NetworkPolicy } from '../network-policy.ts';
import type { PageLifecycle } from '../page-pool.ts';
import { warmPageLifecycle, type WarmPage } from '../warm-page.ts';

/**
 * One warm page (as the renderer's pool opens it: its own context, the network guard allowing no
 * host, the template runtime) and its lifecycle, for the tests of the calling describe block.
 * Returns a getter for both, to call inside the tests.
 */
export function suiteWarmPage(): () => { wp: WarmPage; lifecycle: PageLifecycle<WarmPage> } {
  let host: BrowserHost | undefined;
  let lifecycle: PageLifecycle<WarmPage> | undefined;
  let wp: WarmPage | undefined;
  beforeAll(async () => {
    host = new BrowserHost({ executablePath: resolveChromiumPath(), args: chromiumArgs(), logger: silentLogger });
    lifecycle = warmPageLifecycle({ host, policy: new NetworkPolicy([]), runtimeScript: await pageRuntimeScript(), logger: silentLogger });
    wp = await lifecycle.open();
  });
  afterAll(async () => {
    if (wp && lifecycle) await lifecycle.dispose(wp);
    await host?.close();
  });
  return () => {
    if (!wp || !lifecycle) throw new Error('the suite warm page is not open (call it inside a test)');
    return { wp, lifecycle };
  };
}
