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
  // Every event of the registry (EventSchemas): a new event type gets its file without a line here.
  ...Object.fromEntries(Object.entries(S.EventSchemas).map(([type, schema]) => [`events/${type}.v1`, schema])),
  'events/S3ConnectionRegistered.v1': S.S3ConnectionRegistered,
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
  'http/IntegrationTemplate': S.IntegrationTemplate,
  'http/IntegrationTemplateVariables': S.IntegrationTemplateVariables,
  'http/AssetUploadBody': S.AssetUploadBody,
  'http/AssetResource': S.AssetResource,
  'http/TenantCreateBody': S.TenantCreateBody,
  'http/S3ConnectionCreateBody': S.S3ConnectionCreateBody,
  'http/S3ConnectionUpdateBody': S.S3ConnectionUpdateBody,
  'http/S3ConnectionSummary': S.S3ConnectionSummary,
  'http/S3ConnectionList': S.S3ConnectionList,
  'http/ApiKeyCreateBody': S.ApiKeyCreateBody,
  'http/ApiKeyRotateBody': S.ApiKeyRotateBody,
  'http/ApiKeySummary': S.ApiKeySummary,
  'http/ApiKeyList': S.ApiKeyList,
  'http/ApiKeyCreatedResponse': S.ApiKeyCreatedResponse,
  'http/AdminApiKeyCreatedResponse': S.AdminApiKeyCreatedResponse,
  'http/ApiKeyRotatedResponse': S.ApiKeyRotatedResponse,
  'http/TenantPlanBody': S.TenantPlanBody,
  'views/StatusViewEntry': S.StatusViewEntry,
  'views/DeliveryView': S.DeliveryView,
  'http/WebhookSecretResponse': S.WebhookSecretResponse,
  'http/WebhookReplayBody': S.WebhookReplayBody,
  'http/WebhookReplayResponse': S.WebhookReplayResponse,
  'http/MergePdfsBody': S.MergePdfsBody,
  'http/SplitPdfBody': S.SplitPdfBody,
  'http/CompressPdfBody': S.CompressPdfBody,
  'http/UpdatePdfMetadataBody': S.UpdatePdfMetadataBody,
  'http/MarkdownToPdfBody': S.MarkdownToPdfBody,
  'http/ToolSuccessResponse': S.ToolSuccessResponse,
  'http/SplitPdfResponse': S.SplitPdfResponse,
  'http/ToolQueuedResponse': S.ToolQueuedResponse,
  'http/ToolStatusResponse': S.ToolStatusResponse,
  'http/SignedUploadUrlResponse': S.SignedUploadUrlResponse,
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
