import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as S from '../src/index.ts';

/**
 * Writes the JSON Schema of every event, HTTP body and view into schemas/json/ (committed).
 * With --check it writes nothing and fails when a file is stale, missing or extra.
 */
const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'json');
const schemas: Record<string, unknown> = {
  'events/RenderRequested.v1': S.RenderRequested,
  'events/RenderAttemptStarted.v1': S.RenderAttemptStarted,
  'events/RenderSucceeded.v1': S.RenderSucceeded,
  'events/RenderFailed.v1': S.RenderFailed,
  'events/WebhookDelivered.v1': S.WebhookDelivered,
  'events/WebhookFailed.v1': S.WebhookFailed,
  'events/TemplateCreated.v1': S.TemplateCreated,
  'events/TemplateRevised.v1': S.TemplateRevised,
  'events/TemplateDeleted.v1': S.TemplateDeleted,
  'events/WebhookAttempted.v1': S.WebhookAttempted,
  'events/WebhookReplayRequested.v1': S.WebhookReplayRequested,
  'events/TenantCreated.v1': S.TenantCreated,
  'events/ApiKeyIssued.v1': S.ApiKeyIssued,
  'events/S3ConnectionRegistered.v1': S.S3ConnectionRegistered,
  'events/WebhookSecretCreated.v1': S.WebhookSecretCreated,
  'events/WebhookSecretRotated.v1': S.WebhookSecretRotated,
  'events/RenderRetryScheduled.v1': S.RenderRetryScheduled,
  'events/WebhookAttemptStarted.v1': S.WebhookAttemptStarted,
  'events/RenderWithdrawn.v1': S.RenderWithdrawn,
  'events/BatchRequested.v1': S.BatchRequested,
  'events/BatchCompleted.v1': S.BatchCompleted,
  'http/TemplateSyncBody': S.TemplateSyncBody,
  'http/TemplateAsyncBody': S.TemplateAsyncBody,
  'http/HtmlSyncBody': S.HtmlSyncBody,
  'http/HtmlAsyncBody': S.HtmlAsyncBody,
  'http/SyncSuccessResponse': S.SyncSuccessResponse,
  'http/QueuedResponse': S.QueuedResponse,
  'http/AsyncAcceptedResponse': S.AsyncAcceptedResponse,
  'http/StatusResponse': S.StatusResponse,
  'http/WebhookBody': S.WebhookBody,
  'http/TemplateBatchBody': S.TemplateBatchBody,
  'http/HtmlBatchBody': S.HtmlBatchBody,
  'http/BatchResponse': S.BatchResponse,
  'http/BatchAcceptedResponse': S.BatchAcceptedResponse,
  'http/ErrorBody': S.ErrorBody,
  'http/TemplateWriteBody': S.TemplateWriteBody,
  'http/TemplateResource': S.TemplateResource,
  'http/TemplateVersionList': S.TemplateVersionList,
  'http/TemplatePreviewBody': S.TemplatePreviewBody,
  'http/UnsavedPreviewBody': S.UnsavedPreviewBody,
  'http/IntegrationTemplateList': S.IntegrationTemplateList,
  'http/IntegrationTemplateVariables': S.IntegrationTemplateVariables,
  'http/AssetUploadBody': S.AssetUploadBody,
  'http/AssetResource': S.AssetResource,
  'http/TenantCreateBody': S.TenantCreateBody,
  'http/S3ConnectionCreateBody': S.S3ConnectionCreateBody,
  'views/StatusViewEntry': S.StatusViewEntry,
  'views/DeliveryView': S.DeliveryView,
  'http/WebhookSecretResponse': S.WebhookSecretResponse,
  'http/WebhookReplayBody': S.WebhookReplayBody,
  'http/WebhookReplayResponse': S.WebhookReplayResponse,
};

const check = process.argv.includes('--check');
const stale: string[] = [];
for (const [name, schema] of Object.entries(schemas)) {
  const file = join(outDir, `${name}.json`);
  const text = JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...(schema as object) }, null, 2) + '\n';
  if (check) {
    const current = await readFile(file, 'utf8').catch(() => '');
    if (current !== text) stale.push(name);
  } else {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
  }
}
if (check) {
  for (const sub of ['events', 'http', 'views']) {
    const files = await readdir(join(outDir, sub)).catch(() => [] as string[]);
    for (const f of files) if (!(`${sub}/${f.replace(/\.json$/, '')}` in schemas)) stale.push(`${sub}/${f} (no longer defined)`);
  }
  if (stale.length) {
    process.stderr.write(`schemas/json is stale; run \`npm run schemas:generate\`:\n  ${stale.join('\n  ')}\n`);
    process.exit(1);
  }
  process.stdout.write('schemas/json is up to date\n');
} else {
  process.stdout.write(`wrote ${Object.keys(schemas).length} schemas to schemas/json\n`);
}
