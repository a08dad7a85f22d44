import type { Handlers, RouteHandler } from '../http/route-table.ts';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { Compile } from 'typebox/compile';
import {
  CompressPdfBody,
  MarkdownToPdfBody,
  MergePdfsBody,
  PdfParams,
  SplitPdfBody,
  UpdatePdfMetadataBody,
  type SignedUploadUrlResponse,
  type ToolOperation,
  type ToolRequestInfo,
} from '@pressroom/schemas';
import {
  TOOL_EXPIRATION,
  markdownPageSetup,
  parsePageRanges,
  readCompatBody,
  pdfParamsProblems,
  toolFileName,
  toolMetadataProblems,
  uploadFileName,
  validationError,
  type FieldProblem,
  type PdfToolName,
} from '@pressroom/domain';
import { documentUrlProblem, toolResult, toolStatusBody, type ArtifactStorage, type Clock } from '@pressroom/core';
import type { Metrics } from '@pressroom/observability';
import { bodyParser } from '../http/validate.ts';
import { idempotencyOf } from '../http/idempotency-header.ts';
import { applyUnknownFieldPolicy } from '../http/compat-body.ts';
import { tenantOf } from '../http/auth.ts';
import { sendError, syncFailureStatus } from '../http/error-mapper.ts';
import { markdownDocument } from '../markdown.ts';
import type { RenderInput, RenderRequests } from '../render-requests.ts';

const parse = {
  merge: bodyParser(MergePdfsBody),
  split: bodyParser(SplitPdfBody),
  compress: bodyParser(CompressPdfBody),
  metadata: bodyParser(UpdatePdfMetadataBody),
  markdown: bodyParser(MarkdownToPdfBody),
};
const pdfParamsCheck = Compile(PdfParams);

/** Upload links live 30 minutes, their download links 60 (the real API's lifetimes). */
const UPLOAD_URL_SECONDS = 1800;
const UPLOADED_GET_SECONDS = 3600;

interface CommonToolBody {
  finalFilename?: string | undefined;
  expiration?: number | undefined;
  async?: boolean | undefined;
  webhook?: string | undefined;
}

/**
 * The PDF tools (`/v1/tools/*`, the real API's shapes). Every tool request is a RenderRequested
 * on the log like a render (with `tool` set), so it has a status, a history, the sync → 202
 * fallback, `async`, webhooks and Idempotency-Key; the render worker runs it (qpdf, Ghostscript,
 * or Chromium for Markdown). Input URLs are checked here (400) and again when read.
 */
export function toolRoutes(deps: {
  requests: RenderRequests;
  storage: ArtifactStorage;
  publicUrl: string;
  syncTimeoutMs: number;
  metrics: Metrics;
  clock: Clock;
}): Handlers<
  'mergePdfs' | 'splitPdf' | 'compressPdf' | 'updatePdfMetadata' | 'convertMarkdownToPdf' | 'getSignedUploadUrl' | 'getToolStatus'
> {
  const statusUrl = (id: string) => `${deps.publicUrl}/v1/tools/status/${id}`;

  async function urlProblems(tenantId: string, urls: { field: string; url: string }[]): Promise<FieldProblem[]> {
    const problems = await Promise.all(urls.map((u) => documentUrlProblem(u.field, u.url, tenantId, { storage: deps.storage })));
    return problems.filter((p): p is FieldProblem => p !== undefined);
  }

  async function submit(
    ctx: Context,
    name: PdfToolName,
    body: CommonToolBody,
    build: (info: ToolRequestInfo) => Omit<Extract<RenderInput, { kind: 'tool' }>, 'kind' | 'tool' | 'body'>,
  ) {
    const tenant = tenantOf(ctx);
    const idem = idempotencyOf(ctx);
    const mode = body.async ? 'async' : 'sync';
    const info: ToolRequestInfo = {
      name,
      // The request id is not known yet: an unnamed result is named after a random id.
      fileName: toolFileName(body.finalFilename, `${name}-${randomUUID().slice(0, 8)}`),
      expiresIn: body.expiration ?? TOOL_EXPIRATION.default,
    };
    const input: RenderInput = { kind: 'tool', body: { webhook: body.webhook }, tool: info, ...build(info) };
    const submitted = await deps.requests.submit(tenant, mode, input, idem);
    ctx.set('X-Request-Id', submitted.requestId);
    if (submitted.replayed) ctx.set('Idempotency-Replayed', 'true');
    if (mode === 'async') {
      ctx.body = { requestId: submitted.requestId, statusUrl: statusUrl(submitted.requestId) };
      return;
    }
    const entry = await deps.requests.waitForTerminal(submitted.requestId, deps.syncTimeoutMs);
    if (entry?.state === 'SUCCESS') {
      ctx.body = await toolResult(entry, deps.storage, deps.clock.now(), 'sync');
      return;
    }
    if (entry?.state === 'FAILED' && entry.error)
      return sendError(ctx, syncFailureStatus(entry.error.code), entry.error.code, entry.error.message);
    deps.metrics.syncFallbacksTotal.inc();
    ctx.status = 202;
    ctx.body = {
      requestId: submitted.requestId,
      statusUrl: statusUrl(submitted.requestId),
      message: `The operation took longer than ${Math.round(deps.syncTimeoutMs / 1000)} seconds, so it goes on in the background. Check statusUrl for the result.`,
    };
  }

  const mergePdfs: RouteHandler = async (ctx) => {
    const body = parse.merge(applyUnknownFieldPolicy(ctx, readCompatBody(ctx.request.body, MergePdfsBody)));
    const problems = await urlProblems(
      tenantOf(ctx).tenantId,
      body.urls.map((url, i) => ({ field: `urls.${i}`, url })),
    );
    if (problems.length) throw validationError(problems);
    await submit(ctx, 'merge-pdfs', body, () => ({ source: pdfTool({ tool: 'merge-pdfs', urls: body.urls }) }));
  };

  const splitPdf: RouteHandler = async (ctx) => {
    const body = parse.split(applyUnknownFieldPolicy(ctx, readCompatBody(ctx.request.body, SplitPdfBody)));
    const splitMode = body.splitMode ?? 'intervals';
    const problems: FieldProblem[] = [];
    if (splitMode === 'ranges') {
      if (body.ranges === undefined) problems.push({ field: 'ranges', message: 'is required when splitMode is "ranges"' });
      else {
        const parsed = parsePageRanges(body.ranges);
        if ('problem' in parsed) problems.push({ field: 'ranges', message: parsed.problem });
      }
    } else if (body.interval === undefined) problems.push({ field: 'interval', message: 'is required when splitMode is "intervals"' });
    problems.push(...(await urlProblems(tenantOf(ctx).tenantId, [{ field: 'url', url: body.url }])));
    if (problems.length) throw validationError(problems);
    const op: ToolOperation =
      splitMode === 'ranges'
        ? { tool: 'split-pdf', url: body.url, splitMode, ranges: body.ranges ?? '' }
        : { tool: 'split-pdf', url: body.url, splitMode, interval: body.interval ?? 1 };
    await submit(ctx, 'split-pdf', body, () => ({ source: pdfTool(op) }));
  };

  const compressPdf: RouteHandler = async (ctx) => {
    const body = parse.compress(applyUnknownFieldPolicy(ctx, readCompatBody(ctx.request.body, CompressPdfBody)));
    const problems = await urlProblems(tenantOf(ctx).tenantId, [{ field: 'url', url: body.url }]);
    if (problems.length) throw validationError(problems);
    await submit(ctx, 'compress-pdf', body, () => ({
      source: pdfTool({ tool: 'compress-pdf', url: body.url, compressLevel: body.compressLevel ?? 'medium' }),
    }));
  };

  const updatePdfMetadata: RouteHandler = async (ctx) => {
    const body = parse.metadata(applyUnknownFieldPolicy(ctx, readCompatBody(ctx.request.body, UpdatePdfMetadataBody)));
    const problems = [
      ...toolMetadataProblems(body.metadata),
      ...(await urlProblems(tenantOf(ctx).tenantId, [{ field: 'url', url: body.url }])),
    ];
    if (problems.length) throw validationError(problems);
    await submit(ctx, 'update-pdf-metadata', body, () => ({
      source: pdfTool({ tool: 'update-pdf-metadata', url: body.url, metadata: body.metadata }),
    }));
  };

  const convertMarkdownToPdf: RouteHandler = async (ctx) => {
    const body = parse.markdown(applyUnknownFieldPolicy(ctx, readCompatBody(ctx.request.body, MarkdownToPdfBody)));
    const setup = markdownPageSetup(body.pdfOptions);
    if ('problem' in setup) throw validationError([setup.problem]);
    if (!pdfParamsCheck.Check(setup.params)) {
      throw validationError(
        [...pdfParamsCheck.Errors(setup.params)].map((e) => ({
          field: `pdfOptions${e.instancePath.replace(/\//g, '.')}`,
          message: e.message,
        })),
      );
    }
    const problems = pdfParamsProblems(setup.params, 'pdfOptions');
    if (problems.length) throw validationError(problems);
    await submit(ctx, 'convert-markdown-to-pdf', body, () => ({
      source: { kind: 'html', html: markdownDocument(body.markdown, body.customCss) },
      pdfParams: setup.params,
    }));
  };

  const getSignedUploadUrl: RouteHandler = async (ctx) => {
    const tenant = tenantOf(ctx);
    const raw = typeof ctx.query.fileName === 'string' ? ctx.query.fileName : undefined;
    const fileName = uploadFileName(raw, `upload-${randomUUID().slice(0, 8)}`);
    const key = `${tenant.tenantId}/uploads/${randomUUID()}/${fileName}`;
    const upload = await deps.storage.signedPutUrl(key, UPLOAD_URL_SECONDS);
    if (!upload) return sendError(ctx, 501, 'NOT_IMPLEMENTED', 'This storage takes no uploads.');
    const now = deps.clock.now().getTime();
    const body: SignedUploadUrlResponse = {
      presignedUploadUrl: upload,
      presignedGetUrl: await deps.storage.ownSignedUrl(key, UPLOADED_GET_SECONDS),
      status: 'SUCCESS',
      fileName,
      uploadUrlValidUntil: new Date(now + UPLOAD_URL_SECONDS * 1000).toISOString(),
      getUrlValidUntil: new Date(now + UPLOADED_GET_SECONDS * 1000).toISOString(),
    };
    ctx.body = body;
  };

  const getToolStatus: RouteHandler = async (ctx) => {
    const tenant = tenantOf(ctx);
    const entry = await deps.requests.status(tenant, ctx.params.requestId ?? '');
    // Renders have their own status endpoint; here only tool requests exist.
    if (!entry?.tool) return sendError(ctx, 404, 'NOT_FOUND', `Tool request ${ctx.params.requestId} not found.`);
    ctx.body = await toolStatusBody(entry, deps.storage, deps.clock.now(), 'status');
  };

  return { mergePdfs, splitPdf, compressPdf, updatePdfMetadata, convertMarkdownToPdf, getSignedUploadUrl, getToolStatus };
}

function pdfTool(operation: ToolOperation) {
  return { kind: 'pdf-tool' as const, operation };
}
