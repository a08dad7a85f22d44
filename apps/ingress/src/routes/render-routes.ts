import type { Handlers, RouteHandler } from '../http/route-table.ts';
import type { Context } from 'koa';
import {
  HtmlAsyncBody,
  HtmlSyncBody,
  TemplateAsyncBody,
  TemplatePreviewBody,
  TemplateSyncBody,
  UnsavedPreviewBody,
  type Http,
} from '@pressroom/schemas';
import { formatRenderMetadata, readCompatRenderBody, statusBody, type CompatEndpoint } from '@pressroom/domain';
import type { ArtifactRef } from '@pressroom/schemas';
import type { ArtifactStorage } from '@pressroom/core';
import type { Metrics } from '@pressroom/observability';
import { bodyParser } from '../http/validate.ts';
import { idempotencyOf } from '../http/idempotency-header.ts';
import { applyUnknownFieldPolicy } from '../http/compat-body.ts';
import { tenantOf } from '../http/auth.ts';
import { sendError, syncFailureStatus } from '../http/error-mapper.ts';
import { sendRemoved } from './removal-routes.ts';
import type { RenderInput, RenderRequests, Submitted } from '../render-requests.ts';

const parse = {
  templateSync: bodyParser(TemplateSyncBody),
  templateAsync: bodyParser(TemplateAsyncBody),
  htmlSync: bodyParser(HtmlSyncBody),
  htmlAsync: bodyParser(HtmlAsyncBody),
  preview: bodyParser(TemplatePreviewBody),
  unsaved: bodyParser(UnsavedPreviewBody),
};

/** Response header with a signed link to a debug render's diagnostics (JSON: renderedHtml, variables, unusedData). */
export const DEBUG_URL_HEADER = 'Pressroom-Debug-Url';

/**
 * A render body read as clients of the real API send it (readCompatRenderBody: placeholders,
 * JSON strings, Puppeteer spellings), under the unknown-field policy (applyUnknownFieldPolicy).
 */
function compatBody(ctx: Context, endpoint: CompatEndpoint): unknown {
  return applyUnknownFieldPolicy(ctx, readCompatRenderBody(ctx.request.body, endpoint));
}

/** Headers of an accepted render: its id, and whether an earlier request with the same key answered. */
function setSubmitted(ctx: Context, submitted: Submitted): void {
  ctx.set('X-Request-Id', submitted.requestId);
  if (submitted.replayed) ctx.set('Idempotency-Replayed', 'true');
}

export function renderRoutes(deps: {
  requests: RenderRequests;
  storage: ArtifactStorage;
  publicUrl: string;
  syncTimeoutMs: number;
  metrics: Metrics;
}): Handlers<
  | 'previewUnsavedTemplate'
  | 'previewTemplate'
  | 'renderTemplateSync'
  | 'renderTemplateAsync'
  | 'renderHtmlSync'
  | 'renderHtmlAsync'
  | 'getRenderStatus'
> {
  const statusUrl = (id: string) => `${deps.publicUrl}/v1/pdf/status/${id}`;

  async function sync(ctx: Context, input: RenderInput): Promise<void> {
    const tenant = tenantOf(ctx);
    const requested = await deps.requests.submit(tenant, 'sync', input, idempotencyOf(ctx));
    setSubmitted(ctx, requested);
    const entry = await deps.requests.waitForTerminal(requested.requestId, deps.syncTimeoutMs);
    if (entry?.state === 'SUCCESS' && entry.artifact) {
      await setDebugUrl(ctx, tenant.tenantId, entry, 'sync');
      const body: Http.SyncSuccessResponse = {
        signedUrl: await deps.storage.signedUrl(tenant.tenantId, entry.artifact, entry.linkTtlSeconds, {
          requestId: requested.requestId,
          where: 'sync',
          file: 'result',
        }),
        metadata: formatRenderMetadata(entry.executionMs ?? 0, entry.artifact.bytes, entry.cached),
      };
      ctx.body = body;
      return;
    }
    // Sync failures reuse the error shape; the status says whose fault it was (failure-fault.ts).
    if (entry?.state === 'FAILED' && entry.error) {
      return sendError(ctx, syncFailureStatus(entry.error.code), entry.error.code, entry.error.message);
    }
    deps.metrics.syncFallbacksTotal.inc();
    ctx.status = 202;
    const body: Http.QueuedResponse = {
      requestId: requested.requestId,
      statusUrl: statusUrl(requested.requestId),
      message: `The render took longer than ${Math.round(deps.syncTimeoutMs / 1000)} seconds, so it was moved to a queue. Check statusUrl for the result.`,
    };
    ctx.body = body;
  }

  /** A debug render's diagnostics (rendered HTML, variable checks): a link in a header, so bodies keep the contract's shape. */
  async function setDebugUrl(
    ctx: Context,
    tenantId: string,
    entry: { requestId: string; debugArtifact?: ArtifactRef; linkTtlSeconds?: number },
    where: 'sync' | 'status',
  ) {
    if (!entry.debugArtifact) return;
    const handedOut = { requestId: entry.requestId, where, file: 'debug' } as const;
    ctx.set(DEBUG_URL_HEADER, await deps.storage.signedUrl(tenantId, entry.debugArtifact, entry.linkTtlSeconds, handedOut));
  }

  async function async(ctx: Context, input: RenderInput): Promise<void> {
    const requested = await deps.requests.submit(tenantOf(ctx), 'async', input, idempotencyOf(ctx));
    setSubmitted(ctx, requested);
    ctx.body = { requestId: requested.requestId };
  }

  /**
   * A preview goes through the pipeline like a sync render (the ingress never runs template
   * code) and answers with the bytes themselves. It never falls back to 202: an editor wants
   * the file or an error, so a preview still running after the sync wait answers 504.
   */
  async function preview(ctx: Context, input: RenderInput): Promise<void> {
    const tenant = tenantOf(ctx);
    const requested = await deps.requests.submit(tenant, 'sync', input, idempotencyOf(ctx));
    setSubmitted(ctx, requested);
    const entry = await deps.requests.waitForTerminal(requested.requestId, deps.syncTimeoutMs);
    if (entry?.state === 'SUCCESS' && entry.artifact) {
      const file = await deps.storage.read(tenant.tenantId, entry.artifact);
      if (!file) return sendError(ctx, 500, 'INTERNAL', 'The preview was rendered but its file is gone.');
      ctx.type = file.contentType;
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = Buffer.from(file.bytes);
      return;
    }
    if (entry?.state === 'FAILED' && entry.error) {
      return sendError(ctx, syncFailureStatus(entry.error.code), entry.error.code, entry.error.message);
    }
    return sendError(
      ctx,
      504,
      'PREVIEW_TIMEOUT',
      `The preview took longer than ${Math.round(deps.syncTimeoutMs / 1000)} seconds; the render goes on (X-Request-Id, status endpoint).`,
    );
  }

  const previewUnsavedTemplate: RouteHandler = (ctx) => preview(ctx, { kind: 'unsaved', body: parse.unsaved(ctx.request.body) });
  const previewTemplate: RouteHandler = (ctx) =>
    preview(ctx, { kind: 'preview', templateId: ctx.params.templateId ?? '', body: parse.preview(ctx.request.body) });

  const renderTemplateSync: RouteHandler = (ctx) =>
    sync(ctx, { kind: 'template', body: parse.templateSync(compatBody(ctx, 'template-sync')) });
  const renderTemplateAsync: RouteHandler = (ctx) =>
    async(ctx, { kind: 'template', body: parse.templateAsync(compatBody(ctx, 'template-async')) });
  const renderHtmlSync: RouteHandler = (ctx) => sync(ctx, { kind: 'html', body: parse.htmlSync(compatBody(ctx, 'html-sync')) });
  const renderHtmlAsync: RouteHandler = (ctx) => async(ctx, { kind: 'html', body: parse.htmlAsync(compatBody(ctx, 'html-async')) });

  const getRenderStatus: RouteHandler = async (ctx) => {
    const tenant = tenantOf(ctx);
    const entry = await deps.requests.status(tenant, ctx.params.requestId ?? '');
    if (!entry) return sendError(ctx, 404, 'NOT_FOUND', `Render ${ctx.params.requestId} not found.`);
    if (entry.removed) return sendRemoved(ctx, entry.requestId, entry.removed);
    const signedUrl =
      entry.state === 'SUCCESS' && entry.artifact
        ? await deps.storage.signedUrl(tenant.tenantId, entry.artifact, entry.linkTtlSeconds, {
            requestId: entry.requestId,
            where: 'status',
            file: 'result',
          })
        : '';
    await setDebugUrl(ctx, tenant.tenantId, entry, 'status');
    // The body keeps the contract's shape; which template version the render used goes in headers.
    if (entry.template) {
      ctx.set('X-Template-Id', entry.template.templateId);
      ctx.set('X-Template-Version', String(entry.template.templateVersion));
    }
    ctx.body = statusBody(entry, signedUrl);
  };

  return {
    previewUnsavedTemplate,
    previewTemplate,
    renderTemplateSync,
    renderTemplateAsync,
    renderHtmlSync,
    renderHtmlAsync,
    getRenderStatus,
  };
}
