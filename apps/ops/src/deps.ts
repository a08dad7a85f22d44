// What the commands use, loaded only once a command has been parsed (help and typos never pay for it).
export { exitOnFaults, openRuntime } from '@pressroom/runtime';
export {
  createMemoryStatusView,
  createMemoryTemplateView,
  embeddedViewSnapshots,
  createTenant,
  eventKey,
  importLegacyAssets,
  importLegacyCatalog,
  issueApiKey,
  rebuildCatalog,
  readUsage,
  rebuildStatusView,
  rebuildTemplateView,
  registerS3Connection,
  replayAssetIndex,
} from '@pressroom/core';
export { ensureWebhookSecrets, rebuildDeliveries, requestWebhookReplay, rotateWebhookSecret } from '@pressroom/webhooks';
export { PressroomError, canonicalJson, usageRangeProblem } from '@pressroom/domain';
export { createJsonLogger } from '@pressroom/observability';
export { readConfig } from './config.ts';
