import type { Browser, BrowserContext, BrowserContextOptions, CDPSession, Page } from 'playwright';

/**
 * The switches under which a page can be quiet: Chromium lets a target be created with its frames
 * left to the DevTools client (`enableBeginFrameControl`), and then draws all compositor stages of
 * a frame it is asked for before answering (HeadlessExperimental.beginFrame needs the second).
 * Under them, every page of the browser draws only the frames it is asked for: the renderer opens
 * quiet pages only, each with its FrameClock.
 */
export const FRAME_CONTROL_ARGS = ['--enable-begin-frame-control', '--run-all-compositor-stages-before-draw'] as const;

const browserSessions = new WeakMap<Browser, Promise<CDPSession>>();
/** Contexts are opened one at a time per browser, so the new one is the one id that appeared. */
const opening = new WeakMap<Browser, Promise<unknown>>();

/**
 * A new BrowserContext with one quiet page in it: its frames are drawn only when asked for (see
 * FrameClock). Playwright has no option for it, so the page is created by Chromium's Target domain
 * in the context (whose id Playwright does not tell: it is the one that appears in the browser's
 * list while this context is opened), and Playwright attaches to it like to any page it opens.
 */
export async function openQuietContext(browser: Browser, options: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }> {
  const previous = opening.get(browser) ?? Promise.resolve();
  const opened = previous.catch(() => undefined).then(() => openOne(browser, options));
  opening.set(browser, opened);
  return opened;
}

async function openOne(browser: Browser, options: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }> {
  const session = await browserSession(browser);
  const before = new Set((await session.send('Target.getBrowserContexts')).browserContextIds);
  const context = await browser.newContext(options);
  try {
    const appeared = (await session.send('Target.getBrowserContexts')).browserContextIds.filter((id) => !before.has(id));
    if (appeared.length !== 1) throw new Error(`a new browser context could not be told apart (${appeared.length} appeared)`);
    const page = context.waitForEvent('page');
    page.catch(() => {}); // awaited below; rejected unawaited when the target cannot be created
    await session.send('Target.createTarget', { url: 'about:blank', browserContextId: appeared[0]!, enableBeginFrameControl: true });
    return { context, page: await page };
  } catch (err) {
    await context.close().catch(() => {});
    throw err;
  }
}

function browserSession(browser: Browser): Promise<CDPSession> {
  let session = browserSessions.get(browser);
  if (!session) {
    session = browser.newBrowserCDPSession();
    browserSessions.set(browser, session);
    session.catch(() => browserSessions.delete(browser));
  }
  return session;
}
