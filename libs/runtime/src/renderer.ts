import type { Logger, PressroomConfig, Renderer } from '@pressroom/core';
import { createPlaywrightRenderer, resolveChromiumPath } from '@pressroom/renderer';

export async function openRenderer(config: PressroomConfig, logger: Logger): Promise<Renderer> {
  return createPlaywrightRenderer({
    executablePath: resolveChromiumPath(config.render.chromiumPath),
    pages: config.render.pages,
    recycleAfter: config.render.recycleAfter,
    allowedHosts: config.render.allowedHosts,
    allowPrivateHosts: config.render.allowPrivateHosts,
    maxOutputBytes: config.render.maxOutputBytes,
    maxPngPixels: config.render.maxPngPixels,
    logger,
  });
}
