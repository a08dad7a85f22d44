export {
  createPlaywrightRenderer,
  type PlaywrightRenderer,
  type PlaywrightRendererOptions,
  type RendererStats,
} from './playwright-renderer.ts';
export { resolveChromiumPath, ChromiumNotFoundError, CHROMIUM_CANDIDATES } from './chromium-path.ts';
export { chromiumArgs, PLAYWRIGHT_DISABLED_FEATURES, PRESSROOM_DISABLED_FEATURES } from './chromium-args.ts';
export { NetworkPolicy, type RequestDecision } from './network-policy.ts';
export { A4_VIEWPORT, documentStartScript } from './warm-page.ts';
export { capturePng, stopAnimations, type PngEncoding } from './png-capture.ts';
export {
  createSupervisedRenderer,
  type SupervisedRenderer,
  type SupervisedRendererOptions,
  type SupervisedRendererStats,
} from './supervised-renderer.ts';
export { pinnedFetch, PinnedFetchError, type PinnedRequest, type FetchedResource } from './pinned-fetch.ts';
