import { DEFAULT_RENDER_RETRY_POLICY, planRenderCap } from '@pressroom/domain';
import type { PressroomConfig } from '@pressroom/runtime';
import type { RenderWorkerDeps } from './render-worker.ts';

/** The worker's settings from the render slice of the configuration (this app's main and standalone). */
export function renderWorkerSettings(
  config: PressroomConfig,
): Pick<
  RenderWorkerDeps,
  | 'concurrency'
  | 'readAhead'
  | 'asyncYield'
  | 'capForPlan'
  | 'pngMaxPixelsForPlan'
  | 'pngMaxPagesForPlan'
  | 'renderTimeoutMs'
  | 'retry'
  | 'acceptClockSkewMs'
  | 'crashRetry'
> {
  return {
    concurrency: config.render.pages,
    readAhead: config.render.readAhead,
    asyncYield: config.render.asyncYield,
    capForPlan: (plan) => planRenderCap(config.render.tenantCaps, plan),
    pngMaxPixelsForPlan: (plan) => (plan === 'standard' || plan === 'high' ? config.plans[plan].pngMaxPixels : undefined),
    pngMaxPagesForPlan: (plan) => (plan === 'standard' || plan === 'high' ? config.plans[plan].pngMaxPages : undefined),
    renderTimeoutMs: config.render.timeoutMs,
    retry: config.render.retry,
    acceptClockSkewMs: config.acceptClockSkewMs,
    crashRetry: { ...DEFAULT_RENDER_RETRY_POLICY, crashRetries: config.render.crashRetries },
  };
}
