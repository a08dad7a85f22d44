// What the commands use, loaded only once a command has been parsed (help and typos never pay for it).
export { exitOnFaults, openRuntime } from '@pressroom/runtime';
export {
  createMemoryStatusView,
  createMemoryTemplateView,
  embeddedViewSnapshots,
  changePlan,
  createApiKey,
  createTenant,
  deleteS3Connection,
  listApiKeys,
  listS3Connections,
  revokeApiKey,
  rotateApiKey,
  eventKey,
  importLegacyAssets,
  importLegacyCatalog,
  rebuildCatalog,
  readUsage,
  rebuildStatusView,
  REPLAY_BATCH,
  rebuildTemplateView,
  registerS3Connection,
  replayAssetIndex,
} from '@pressroom/core';
export { ensureWebhookSecrets, rebuildDeliveries, requestWebhookReplay, rotateWebhookSecret } from '@pressroom/webhooks';
export { PressroomError, canonicalJson, usageRangeProblem } from '@pressroom/domain';
export { createJsonLogger } from '@pressroom/observability';
export { readConfig } from './config.ts';
