import type {
  DataSchema,
  Http,
  PdfParams,
  ReadySignal,
  RenderRequested,
  RenderSource,
  StorageTarget,
  ToolRequestInfo,
} from '@pressroom/schemas';
import {
  dataLimitProblems,
  debugChecks,
  describeVariables,
  mergePdfParams,
  type DoorLimits,
  type FieldProblem,
  type TemplateVersionRecord,
} from '@pressroom/domain';

import { templateContentProblems, variablesOf } from './templates.ts';

/**
 * Request assembly: what a render request becomes on the log, as pure functions of what the
 * caller sent and what the ingress looked up for it (the template version, the storage target,
 * the clock). render-requests.ts does the looking up (template view, catalog, DNS of the webhook,
 * the validation worker) and the appending; everything it decides from those facts is here, with
 * given/when/then unit tests (request-assembly.unit.spec.ts).
 */

export type RenderInput =
  | { kind: 'template'; body: Http.TemplateSyncBody | Http.TemplateAsyncBody }
  | { kind: 'html'; body: Http.HtmlSyncBody | Http.HtmlAsyncBody }
  /** A preview of a stored template (`POST /v1/templates/{id}/preview`). */
  | { kind: 'preview'; templateId: string; body: Http.TemplatePreviewBody }
  /** A preview of unsaved sources (`POST /v1/templates/preview`). */
  | { kind: 'unsaved'; body: Http.UnsavedPreviewBody }
  /**
   * A PDF tool (`/v1/tools/*`), already checked by its route: a `pdf-tool` source, or the HTML
   * of a Markdown document with its page setup. `body` is what the caller sent (for the
   * Idempotency-Key fingerprint and the webhook).
   */
  | { kind: 'tool'; body: { webhook?: string | undefined }; source: RenderSource; pdfParams?: PdfParams; tool: ToolRequestInfo };

/** The template id a preview of unsaved sources carries in its RenderRequested. */
export const UNSAVED_TEMPLATE_ID = 'unsaved';

/** What a request renders, with what its template brings (page setup, ready signal, declared schema). */
export interface ResolvedSource {
  source: RenderSource;
  /** The template's declared data schema, when it has one. */
  dataSchema?: DataSchema;
  pdfParams?: PdfParams;
  ready?: ReadySignal;
}

/** A request for a stored template: which template and version to read (absent version: the latest). */
export function storedTemplateWanted(input: RenderInput): { templateId: string; templateVersion: number | undefined } | undefined {
  if (input.kind === 'template') return { templateId: input.body.templateId, templateVersion: input.body.templateVersion };
  if (input.kind === 'preview') return { templateId: input.templateId, templateVersion: input.body.templateVersion };
  return undefined;
}

/**
 * The source a request renders. `stored` is the template version read for it (see
 * storedTemplateWanted); the other kinds carry their source themselves.
 */
export function resolveSource(input: RenderInput, stored?: TemplateVersionRecord): ResolvedSource {
  if (input.kind === 'tool') return { source: input.source };
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
  if (!stored) throw new Error(`a ${input.kind} request needs its stored template version`);
  const t = stored;
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

/**
 * The page setup a request renders with: a tool's own, else the template's defaults under the
 * request's pdfParams. A top-level hasCover (the real API's place for it) is pdfParams.hasCover.
 */
export function pdfParamsOf(input: RenderInput, resolved: ResolvedSource): PdfParams | undefined {
  if (input.kind === 'tool') return input.pdfParams;
  const asked =
    'hasCover' in input.body && input.body.hasCover !== undefined
      ? { ...input.body.pdfParams, hasCover: input.body.hasCover }
      : input.body.pdfParams;
  return mergePdfParams(resolved.pdfParams, asked);
}

/** Limits on what a request brings, checked before any work is done on it: its data, and the sources and schema of an unsaved template. */
export function doorProblems(input: RenderInput, limits: DoorLimits): FieldProblem[] {
  if (input.kind === 'html' || input.kind === 'tool') return [];
  const problems = input.body.data === undefined ? [] : dataLimitProblems(input.body.data, limits);
  if (input.kind === 'unsaved') problems.push(...templateContentProblems(input.body, limits));
  return problems;
}

/** Where the caller asked the file to go, or undefined when it goes to our own storage without asking (previews, tools). */
export function storageWanted(input: RenderInput): { bucket: string | undefined; key: string | undefined } | undefined {
  // A preview always goes to our own storage (its bytes are read back at once).
  if (input.kind === 'preview' || input.kind === 'unsaved' || input.kind === 'tool') return undefined;
  return { bucket: input.body.s3_bucket, key: input.body.s3_key };
}

/** The webhook a request names, if any (checked against the target policy before assembly). */
export function webhookOf(input: RenderInput): string | undefined {
  return 'webhook' in input.body ? input.body.webhook || undefined : undefined;
}

/** The real API's per-render extras: the links' lifetime, the caller's externalId, the cache opt-out, debug's variable checks. */
export function renderExtras(input: RenderInput, resolved: ResolvedSource): Partial<RenderRequested['data']> {
  if (input.kind !== 'template' && input.kind !== 'html') return {};
  const b = input.body;
  const extras: Partial<RenderRequested['data']> = {
    ...(b.signedUrlExpiresIn !== undefined ? { linkTtlSeconds: b.signedUrlExpiresIn } : {}),
    ...(b.externalId !== undefined ? { externalId: b.externalId } : {}),
    ...(b.cache === false ? { noCache: true } : {}),
  };
  if (input.kind === 'template' && input.body.debug === true && resolved.source.kind === 'template') {
    const { templateId, templateVersion } = resolved.source;
    const schema = resolved.dataSchema ?? variablesOf(resolved.source, { templateId, version: templateVersion }).schema;
    extras.debug = debugChecks(describeVariables(schema), resolved.source.data);
  }
  return extras;
}

/** What the ingress established about a request before assembling it. */
export interface AssemblyFacts {
  mode: 'sync' | 'async';
  resolved: ResolvedSource;
  /** The merged page setup (pdfParamsOf), already checked. */
  pdfParams: PdfParams | undefined;
  storage: StorageTarget;
  /** The tenant's plan, carried so the worker applies the tenant's render cap without a lookup. */
  plan: string;
  /** The acceptance deadline (ISO date-time): past it the caller got 503 and the request is withdrawn. */
  acceptBy: string;
  idempotency?: { key: string; fingerprint: string } | undefined;
  batch?: { batchRequestId: string; index: number } | undefined;
}

/** The RenderRequested a checked request becomes (its data; the envelope is the event factory's). */
export function assembleRenderRequest(input: RenderInput, facts: AssemblyFacts): RenderRequested['data'] {
  const { resolved, pdfParams } = facts;
  const webhook = webhookOf(input);
  const metadata = input.kind !== 'tool' && 'metadata' in input.body ? input.body.metadata : undefined;
  const preview = input.kind === 'preview' || input.kind === 'unsaved';
  return {
    mode: facts.mode,
    ...(webhook ? { webhook } : {}),
    source: resolved.source,
    output: input.kind !== 'tool' && input.body.convertToImage ? 'png' : 'pdf',
    ...(metadata ? { pdfMetadata: metadata } : {}),
    ...(pdfParams ? { pdfParams } : {}),
    ...(resolved.ready ? { ready: resolved.ready } : {}),
    ...(preview ? { preview: true } : {}),
    storage: facts.storage,
    plan: facts.plan,
    acceptBy: facts.acceptBy,
    // On the log so the keys can be rebuilt from it (selfRebuildingIdempotencyKeys).
    ...(facts.idempotency ? { idempotencyKey: facts.idempotency.key, idempotencyFingerprint: facts.idempotency.fingerprint } : {}),
    ...renderExtras(input, resolved),
    ...(input.kind === 'tool' ? { tool: input.tool } : {}),
    ...(facts.batch ? { batch: facts.batch } : {}),
  };
}
