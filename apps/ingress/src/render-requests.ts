import type { Http, RenderRequested, RenderSource, StatusViewEntry, StorageTarget } from '@pressroom/schemas';
import { PressroomError, logUnavailable, notFound, validationError } from '@pressroom/domain';
import {
  checkWebhookTarget,
  type Catalog,
  type EventFactory,
  type EventLog,
  type Ids,
  type StatusView,
  type Tenant,
  type TopicNames,
} from '@pressroom/core';

export type RenderInput =
  | { kind: 'template'; body: Http.TemplateSyncBody | Http.TemplateAsyncBody }
  | { kind: 'html'; body: Http.HtmlSyncBody | Http.HtmlAsyncBody };

export interface RenderRequestsDeps {
  log: EventLog;
  view: StatusView;
  catalog: Catalog;
  topics: TopicNames;
  ids: Ids;
  event: EventFactory;
  allowPrivateWebhooks: boolean;
  webhookTargets?: { allowHttp: boolean; allowedPorts: number[] };
}

/**
 * Turns a validated HTTP body into a RenderRequested event on the log. The request is
 * acknowledged only after the log has durably accepted it; the ingress then records the
 * pending entry in the view itself, so a status call right after the answer finds it.
 */
export function createRenderRequests(deps: RenderRequestsDeps) {
  async function submit(tenant: Tenant, mode: 'sync' | 'async', input: RenderInput): Promise<RenderRequested> {
    const body = input.body;
    const storage = await storageTarget(tenant, body.s3_bucket, body.s3_key);
    const webhook = 'webhook' in body ? body.webhook : undefined;
    if (webhook) {
      const problem = await checkWebhookTarget(webhook, { allowPrivate: deps.allowPrivateWebhooks, ...deps.webhookTargets });
      if (problem) throw validationError([problem]);
    }
    const source = await renderSource(tenant, input);
    const metadata = 'metadata' in body ? body.metadata : undefined;
    const requestId = deps.ids.next();
    const requested = deps.event(
      'RenderRequested',
      { requestId, tenantId: tenant.tenantId },
      {
        mode,
        ...(webhook ? { webhook } : {}),
        source,
        output: body.convertToImage ? 'png' : 'pdf',
        ...(metadata ? { pdfMetadata: metadata } : {}),
        storage,
      },
    );
    const topic = mode === 'sync' ? deps.topics.requestedSync : deps.topics.requestedAsync;
    try {
      await deps.log.append(topic, [requested]);
    } catch (err) {
      throw err instanceof PressroomError ? err : logUnavailable(err);
    }
    await deps.view.apply(requested);
    return requested;
  }

  async function storageTarget(tenant: Tenant, bucket: string | undefined, key: string | undefined): Promise<StorageTarget> {
    if (key !== undefined && bucket === undefined) {
      throw validationError([{ field: 's3_key', message: 'is valid only together with s3_bucket' }]);
    }
    if (bucket === undefined) return { kind: 'default' };
    if (tenant.plan !== 'high') throw new PressroomError('FORBIDDEN', 'Custom S3 storage is available on the high plan only.');
    const connection = await deps.catalog.getS3Connection(tenant.tenantId, bucket);
    if (!connection) throw validationError([{ field: 's3_bucket', message: 'is not one of your S3 connections' }]);
    return { kind: 's3-connection', connectionId: connection.connectionId, ...(key !== undefined ? { key } : {}) };
  }

  async function renderSource(tenant: Tenant, input: RenderInput): Promise<RenderSource> {
    if (input.kind === 'html') return { kind: 'html', html: input.body.html };
    const template = await deps.catalog.getTemplate(tenant.tenantId, input.body.templateId);
    if (!template) throw notFound(`Template ${input.body.templateId}`);
    return {
      kind: 'template',
      templateId: template.templateId,
      templateVersion: template.version,
      content: template.content,
      data: input.body.data ?? {},
    };
  }

  /** The view entry of a request, or undefined when it was never issued to this tenant. */
  async function status(tenant: Tenant, requestId: string): Promise<StatusViewEntry | undefined> {
    const entry = await deps.view.get(requestId);
    return entry && entry.tenantId === tenant.tenantId ? entry : undefined;
  }

  return { submit, status, waitForTerminal: (id: string, ms: number) => deps.view.waitForTerminal(id, ms) };
}
export type RenderRequests = ReturnType<typeof createRenderRequests>;
