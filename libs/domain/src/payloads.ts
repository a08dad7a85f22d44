import type { RenderSource } from '@pressroom/schemas';

/**
 * Request payloads out of the log (PRESSROOM_PAYLOADS=store): the ingress stores an `html` or
 * `template` source in our own storage and the RenderRequested carries only a `stored`
 * reference (key, SHA-256, size). These are the pure parts: where it goes, what the event keeps.
 */

type StoredSource = Extract<RenderSource, { kind: 'stored' }>;
export type PayloadRef = StoredSource['payload'];

/**
 * The payload's key in our own storage: beside the render's files, under its request id, so
 * retention (renderOfObjectKey) and DELETE remove it with them. Never in a tenant's connection.
 */
export function payloadKey(tenantId: string, requestId: string): string {
  return `${tenantId}/${requestId}.payload.json`;
}

/** Whether a source is a payload that goes to storage: an HTML body or a template with its data (a PDF tool's operation stays). */
export function isStorablePayload(source: RenderSource): source is Extract<RenderSource, { kind: 'html' | 'template' }> {
  return source.kind === 'html' || source.kind === 'template';
}

/** What the log keeps of a stored payload: its kind, the template it renders (not its data), and the reference. */
export function storedSourceOf(source: Extract<RenderSource, { kind: 'html' | 'template' }>, payload: PayloadRef): StoredSource {
  return {
    kind: 'stored',
    of: source.kind,
    ...(source.kind === 'template' ? { templateId: source.templateId, templateVersion: source.templateVersion } : {}),
    payload,
  };
}

/** The template a source renders, inline or stored; undefined for HTML and tools. */
export function templateOfSource(source: RenderSource): { templateId: string; templateVersion: number } | undefined {
  if (source.kind === 'template') return { templateId: source.templateId, templateVersion: source.templateVersion };
  if (source.kind === 'stored' && source.templateId !== undefined && source.templateVersion !== undefined)
    return { templateId: source.templateId, templateVersion: source.templateVersion };
  return undefined;
}

/** A stored payload read back, checked against its reference; anything else is not this request's payload. */
export function readBackPayload(
  ref: PayloadRef,
  read: { sha256: string; bytes: number; source: unknown } | undefined,
): { ok: true; source: RenderSource } | { ok: false; code: 'PAYLOAD_REMOVED' | 'RENDER_ERROR'; message: string } {
  if (!read) {
    return {
      ok: false,
      code: 'PAYLOAD_REMOVED',
      message:
        "The request's payload is not in our storage: it was removed (deleted, or its plan's retention passed) before it was rendered, " +
        'or never stored (the service stopped while taking the request, before answering it).',
    };
  }
  if (read.sha256 !== ref.sha256 || read.bytes !== ref.bytes) {
    return { ok: false, code: 'RENDER_ERROR', message: "The stored payload does not match the request's SHA-256 and size." };
  }
  const source = read.source as RenderSource | undefined;
  if (!source || typeof source !== 'object' || (source.kind !== 'html' && source.kind !== 'template')) {
    return { ok: false, code: 'RENDER_ERROR', message: 'The stored payload is not an HTML or template source.' };
  }
  return { ok: true, source };
}
