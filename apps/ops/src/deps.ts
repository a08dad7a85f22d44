// What the commands use, loaded only once a command has been parsed (help and typos never pay for it).
export { exitOnFaults, openRuntime } from '@pressroom/runtime';
export { createMemoryStatusView, eventKey } from '@pressroom/core';
export { PressroomError, canonicalJson } from '@pressroom/domain';
export { createJsonLogger } from '@pressroom/observability';
export { createTenant, issueApiKey, registerS3Connection } from '@pressroom/ingress';
export { rebuildStatusView, rebuildTemplateView } from '@pressroom/status-projector';
export {
  ensureWebhookSecrets,
  importLegacyCatalog,
  rebuildCatalog,
  rebuildDeliveries,
  requestWebhookReplay,
  rotateWebhookSecret,
} from '@pressroom/core';
export { readConfig } from './config.ts';
