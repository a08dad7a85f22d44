import type {
  DataSchema,
  Http,
  PdfParams,
  ReadySignal,
  RenderRequested,
  RenderSource,
  StatusViewEntry,
  StorageTarget,
} from '@pressroom/schemas';
import {
  PressroomError,
  dataLimitProblems,
  dataProblems,
  logUnavailable,
  mergePdfParams,
  pdfParamsProblems,
  validationError,
  type DoorLimits,
  type FieldProblem,
} from '@pressroom/domain';
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

import { templateContentProblems, variablesOf, type Templates } from './templates.ts';
import type { SchemaChecker } from './schema-validation/schema-checker.ts';

export type RenderInput =
  | { kind: 'template'; body: Http.TemplateSyncBody | Http.TemplateAsyncBody }
  | { kind: 'html'; body: Http.HtmlSyncBody | Http.HtmlAsyncBody }
  /** A preview of a stored template (`POST /v1/templates/{id}/preview`). */
  | { kind: 'preview'; templateId: string; body: Http.TemplatePreviewBody }
  /** A preview of unsaved sources (`POST /v1/templates/preview`). */
  | { kind: 'unsaved'; body: Http.UnsavedPreviewBody };

/** The template id a preview of unsaved sources carries in its RenderRequested. */
export const UNSAVED_TEMPLATE_ID = 'unsaved';

interface ResolvedSource {
  source: RenderSource;
  /** The template's declared data schema, when it has one. */
  dataSchema?: DataSchema;
  pdfParams?: PdfParams;
  ready?: ReadySignal;
}

export interface RenderRequestsDeps {
  log: EventLog;
  view: StatusView;
  catalog: Catalog;
  templates: Templates;
  topics: TopicNames;
  ids: Ids;
  event: EventFactory;
  allowPrivateWebhooks: boolean;
  webhookTargets?: { allowHttp: boolean; allowedPorts: number[] };
  limits: DoorLimits;
  schemas: SchemaChecker;
}

/**
 * Turns a validated HTTP body into a RenderRequested event on the log. The request is
 * acknowledged only after the log has durably accepted it; the ingress then records the
 * pending entry in the view itself, so a status call right after the answer finds it.
 */
export function createRenderRequests(deps: RenderRequestsDeps) {
  async function submit(tenant: Tenant, mode: 'sync' | 'async', input: RenderInput): Promise<RenderRequested> {
    const body = input.body;
    // Bounded before any work is done on them: the data's size and shape, unsaved sources.
    const bounds = doorProblems(input);
    if (bounds.length) throw validationError(bounds);
    // Checked at the door, all at once: the template's variables and the page setup.
    const resolved = await renderSource(tenant, input);
    const pdfParams = mergePdfParams(resolved.pdfParams, body.pdfParams);
    const problems = [...(await dataProblemsOf(resolved)), ...pdfParamsProblems(pdfParams)];
    if (problems.length) throw validationError(problems);
    // A preview always goes to our own storage (its bytes are read back at once).
    const storage =
      input.kind === 'preview' || input.kind === 'unsaved'
        ? ({ kind: 'default' } as const)
        : await storageTarget(tenant, input.body.s3_bucket, input.body.s3_key);
    const webhook = 'webhook' in body ? body.webhook : undefined;
    if (webhook) {
      const problem = await checkWebhookTarget(webhook, { allowPrivate: deps.allowPrivateWebhooks, ...deps.webhookTargets });
      if (problem) throw validationError([problem]);
    }
    const { source } = resolved;
    const metadata = 'metadata' in body ? body.metadata : undefined;
    const preview = input.kind === 'preview' || input.kind === 'unsaved';
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
        ...(pdfParams ? { pdfParams } : {}),
        ...(resolved.ready ? { ready: resolved.ready } : {}),
        ...(preview ? { preview: true } : {}),
        storage,
        // Carried on the event so the worker applies the tenant's render cap without a lookup.
        plan: tenant.plan,
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

  async function renderSource(tenant: Tenant, input: RenderInput): Promise<ResolvedSource> {
    if (input.kind === 'html') return { source: { kind: 'html', html: input.body.html } };
    if (input.kind === 'unsaved') {
      const b = input.body;
      return {
        source: {
          kind: 'template',
          templateId: UNSAVED_TEMPLATE_ID,
          templateVersion: 1,
          content: b.content,
          ...(b.header !== undefined ? { header: b.header } : {}),
          ...(b.footer !== undefined ? { footer: b.footer } : {}),
          data: b.data ?? {},
        },
        ...(b.ready ? { ready: b.ready } : {}),
        ...(b.dataSchema ? { dataSchema: b.dataSchema } : {}),
      };
    }
    const templateId = input.kind === 'preview' ? input.templateId : input.body.templateId;
    // A pinned version, else the latest; 404 for an unknown template or version.
    const { version: t } = await deps.templates.read(tenant.tenantId, templateId, input.body.templateVersion);
    return {
      source: {
        kind: 'template',
        templateId: t.templateId,
        templateVersion: t.version,
        content: t.content,
        ...(t.header !== undefined ? { header: t.header } : {}),
        ...(t.footer !== undefined ? { footer: t.footer } : {}),
        data: input.body.data ?? {},
      },
      ...(t.pdfParams ? { pdfParams: t.pdfParams } : {}),
      ...(t.ready ? { ready: t.ready } : {}),
      ...(t.dataSchema ? { dataSchema: t.dataSchema } : {}),
    };
  }

  /** Limits on what a request brings: its data, and the sources and schema of an unsaved template. */
  function doorProblems(input: RenderInput): FieldProblem[] {
    if (input.kind === 'html') return [];
    const problems = input.body.data === undefined ? [] : dataLimitProblems(input.body.data, deps.limits);
    if (input.kind === 'unsaved') problems.push(...templateContentProblems(input.body, deps.limits));
    return problems;
  }

  /**
   * One problem per missing or mistyped variable (`data.<path>`). A declared schema (the
   * tenant's) is checked on the validation worker under its deadline; an inferred one is ours,
   * linear to check, and checked here.
   */
  async function dataProblemsOf(resolved: ResolvedSource): Promise<FieldProblem[]> {
    if (resolved.source.kind !== 'template') return [];
    if (resolved.dataSchema) return deps.schemas.dataProblems(resolved.dataSchema, resolved.source.data);
    const { templateId, templateVersion } = resolved.source;
    const stored = templateId === UNSAVED_TEMPLATE_ID ? undefined : { templateId, version: templateVersion };
    return dataProblems(variablesOf(resolved.source, stored).schema, resolved.source.data);
  }

  /** The view entry of a request, or undefined when it was never issued to this tenant. */
  async function status(tenant: Tenant, requestId: string): Promise<StatusViewEntry | undefined> {
    const entry = await deps.view.get(requestId);
    return entry && entry.tenantId === tenant.tenantId ? entry : undefined;
  }

  return { submit, status, waitForTerminal: (id: string, ms: number) => deps.view.waitForTerminal(id, ms) };
}
export type RenderRequests = ReturnType<typeof createRenderRequests>;
