import type { Handlers, RouteHandler } from '../http/route-table.ts';
import type { Context } from 'koa';
import { HtmlBatchBody, TemplateBatchBody, type Http, type StatusViewEntry } from '@pressroom/schemas';
import { batchBody, batchItemEntries, batchItemsProblems, isTerminal, readCompatBatchBody, validationError } from '@pressroom/domain';
import type { ArtifactStorage, Tenant } from '@pressroom/core';
import { bodyParser } from '../http/validate.ts';
import { applyUnknownFieldPolicy } from '../http/compat-body.ts';
import { tenantOf } from '../http/auth.ts';
import { sendError } from '../http/error-mapper.ts';
import type { RenderRequests } from '../render-requests.ts';

const parse = { template: bodyParser(TemplateBatchBody), html: bodyParser(HtmlBatchBody) };

/** The item count first (one clear message for 21 items), then every item against its schema. */
function parseBatch(ctx: Context, kind: 'template' | 'html'): Http.TemplateBatchBody | Http.HtmlBatchBody {
  // Read like render bodies (placeholders, JSON strings, the unknown-field policy), items included.
  const read = readCompatBatchBody(ctx.request.body, kind === 'template' ? TemplateBatchBody : HtmlBatchBody, kind);
  const value = applyUnknownFieldPolicy(ctx, read);
  const count = batchItemsProblems(value);
  if (count.length) throw validationError(count);
  return parse[kind](value);
}

/**
 * Batch rendering as the pdf noodle API documents it: `POST /v1/pdf/batch` (template items),
 * `POST /v1/html-to-pdf/batch` (HTML items), `GET /v1/pdf/batch/status/{batchRequestId}`.
 * Each item is a render of its own (own requestId, own status); the batch is an entity of its
 * own on the log (BatchRequested, BatchCompleted) with its own status view entry.
 */
export function batchRoutes(deps: {
  requests: RenderRequests;
  storage: ArtifactStorage;
  publicUrl: string;
  syncTimeoutMs: number;
}): Handlers<'renderTemplateBatch' | 'renderHtmlBatch' | 'getBatchStatus'> {
  const statusUrl = (id: string) => `${deps.publicUrl}/v1/pdf/batch/status/${id}`;

  async function bodyOf(tenant: Tenant, batch: StatusViewEntry, live: Array<StatusViewEntry | undefined>): Promise<Http.BatchResponse> {
    const ttl = batch.batch?.signedUrlExpiresIn;
    const items = batchItemEntries(batch, live);
    const sign = (e: StatusViewEntry | undefined) =>
      e?.state === 'SUCCESS' && e.artifact && !e.withdrawnAt
        ? deps.storage.signedUrl(tenant.tenantId, e.artifact, ttl, { requestId: e.requestId, where: 'batch', file: 'result' })
        : Promise.resolve('');
    const urls = await Promise.all(items.map(sign));
    const merged =
      isTerminal(batch) && batch.artifact
        ? await deps.storage.signedUrl(tenant.tenantId, batch.artifact, ttl, { requestId: batch.requestId, where: 'batch', file: 'merged' })
        : undefined;
    return batchBody(batch, items, { items: urls, ...(merged ? { merged } : {}) });
  }

  async function submit(ctx: Context, kind: 'template' | 'html'): Promise<void> {
    const tenant = tenantOf(ctx);
    const body = parseBatch(ctx, kind);
    const { batchRequestId } = await deps.requests.submitBatch(tenant, kind, body);
    ctx.set('X-Batch-Request-Id', batchRequestId);
    if (body.async) {
      const accepted: Http.BatchAcceptedResponse = { batchRequestId, statusUrl: statusUrl(batchRequestId) };
      ctx.body = accepted;
      return;
    }
    await deps.requests.waitForTerminal(batchRequestId, deps.syncTimeoutMs);
    const found = await deps.requests.batchStatus(tenant, batchRequestId);
    if (found && isTerminal(found.batch)) {
      ctx.body = await bodyOf(tenant, found.batch, found.items);
      return;
    }
    ctx.status = 202;
    const queued: Http.BatchAcceptedResponse = {
      batchRequestId,
      statusUrl: statusUrl(batchRequestId),
      message: `The batch took longer than ${Math.round(deps.syncTimeoutMs / 1000)} seconds, so it goes on in the background. Check statusUrl for the result.`,
    };
    ctx.body = queued;
  }

  const renderTemplateBatch: RouteHandler = (ctx) => submit(ctx, 'template');
  const renderHtmlBatch: RouteHandler = (ctx) => submit(ctx, 'html');
  const getBatchStatus: RouteHandler = async (ctx) => {
    const tenant = tenantOf(ctx);
    const found = await deps.requests.batchStatus(tenant, ctx.params.batchRequestId ?? '');
    if (!found) return sendError(ctx, 404, 'NOT_FOUND', `Batch ${ctx.params.batchRequestId} not found.`);
    ctx.body = await bodyOf(tenant, found.batch, found.items);
  };
  return { renderTemplateBatch, renderHtmlBatch, getBatchStatus };
}
