import { readFileSync } from 'node:fs';
import type { Logger, Renderer } from '@pressroom/core';
import type { PressroomConfig } from './config.ts';
import { createSupervisedRenderer, resolveChromiumPath } from '@pressroom/renderer';
import type { Metrics } from '@pressroom/observability';

/**
 * The renderer every app uses: Playwright and Chromium in a supervised child process, so that a
 * render that crashes or wedges them fails (RENDER_CRASHED, retried by the render worker) instead
 * of taking the app — the ingress of the embedded profile, or the render worker — with it.
 */
export async function openRenderer(config: PressroomConfig, logger: Logger, metrics?: Metrics): Promise<Renderer> {
  const user = rendererUser(config.render.user, process.getuid?.() === 0);
  if (!user && process.getuid?.() === 0) {
    logger.warn('the renderer runs as root, so Chromium runs without its sandbox; set PRESSROOM_RENDER_USER (see README)');
  }
  const renderer = await createSupervisedRenderer({
    executablePath: resolveChromiumPath(config.render.chromiumPath),
    pages: config.render.pages,
    recycleAfter: config.render.recycleAfter,
    allowedHosts: config.render.allowedHosts,
    allowPrivateHosts: config.render.allowPrivateHosts,
    maxOutputBytes: config.render.maxOutputBytes,
    maxPngPixels: config.render.maxPngPixels,
    pngEncoding: config.render.pngEncoding,
    ...(user ? { user } : {}),
    logger,
  });
  metrics?.observeRenderer(() => {
    const s = renderer.stats();
    return {
      hostPid: s.hostPid,
      pages: config.render.pages,
      busyPages: s.busyPages,
      hostRestarts: Math.max(0, s.hostStarts - 1),
      pagesReplaced: s.pagesReplaced,
    };
  });
  return renderer;
}

/**
 * Whom the renderer host runs as. A root service never hands tenant pages to a root Chromium
 * without being told to: it drops to the configured user, else to `nobody` where that user
 * exists (Chromium's sandbox then starts); `root` opts out. A non-root service stays itself.
 */
export function rendererUser(
  configured: string | undefined,
  runsAsRoot: boolean,
  passwd = '/etc/passwd',
): { uid: number; gid: number } | undefined {
  if (configured === 'root') return undefined;
  if (configured) return unixUser(configured, passwd);
  if (!runsAsRoot) return undefined;
  try {
    return unixUser('nobody', passwd);
  } catch {
    return undefined;
  }
}

/** The uid and gid of a local user, from /etc/passwd (Node has no getpwnam); fails at start if absent. */
export function unixUser(name: string, passwd = '/etc/passwd'): { uid: number; gid: number } {
  for (const line of readFileSync(passwd, 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(`PRESSROOM_RENDER_USER: there is no user named ${JSON.stringify(name)} on this machine`);
}
