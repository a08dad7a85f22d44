import Type, { type Static, type TProperties, type TSchema } from 'typebox';

/** Identifiers we issue are UUIDv7 strings; callers may only ever send them back to us. */
export const RequestId = Type.String({ format: 'uuid', description: 'Identifier of a render request (UUIDv7).' });
/** The members every event opens with, whatever its key (request, template, tenant stream). */
function eventHead<T extends string>(type: T) {
  return {
    eventId: Type.String({ description: 'UUIDv7, unique per event.' }),
    type: Type.Literal(type),
    version: Type.Literal(1),
    occurredAt: Type.String({ format: 'date-time' }),
  };
}

/**
 * An event's schema: the common head, the fields that key its stream (`requestId` and `tenantId`;
 * `templateId` and `tenantId`; …) and its `data`, closed to other fields, with `$id`
 * `pressroom.<type>.v1`. Every topic's events are made by it, so they differ only in their keys.
 */
export function eventEnvelope<T extends string, K extends TProperties, D extends TSchema>(type: T, keys: K, data: D) {
  return Type.Object({ ...eventHead(type), ...keys, data }, { additionalProperties: false, $id: `pressroom.${type}.v1` });
}

export const TenantId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

/** What a render produces; the one place the output kinds are listed. */
export const OutputKind = Type.Union([Type.Literal('pdf'), Type.Literal('png')]);
export type OutputKind = Static<typeof OutputKind>;

/** Failure reasons form a closed list so receivers can branch on them. */
export const FailureCode = Type.Union(
  [
    Type.Literal('TEMPLATE_ERROR'),
    Type.Literal('RENDER_TIMEOUT'),
    Type.Literal('OUTPUT_TOO_LARGE'),
    Type.Literal('STORAGE_ERROR'),
    Type.Literal('RENDER_ERROR'),
    Type.Literal('NAVIGATION_REFUSED'),
    Type.Literal('PAGE_SETUP_INVALID'),
    // The renderer process died or stopped answering during this render, on every attempt.
    Type.Literal('RENDER_CRASHED'),
    // PDF tools: an input document could not be read (not a PDF, damaged, encrypted, over a limit)…
    Type.Literal('INPUT_INVALID'),
    // …or could not be fetched (refused by the outbound address policy, unreachable, too large, not found).
    Type.Literal('INPUT_UNAVAILABLE'),
    // The request's stored payload is gone (its retention passed, or it was deleted) before it was rendered.
    Type.Literal('PAYLOAD_REMOVED'),
  ],
  { description: 'Why a render failed.' },
);

export const RenderError = Type.Object({ code: FailureCode, message: Type.String() }, { additionalProperties: false });

/** Options accepted in the request `metadata` object; written into the PDF info dictionary. */
export const PdfMetadata = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 1000 })),
    author: Type.Optional(Type.String({ maxLength: 1000 })),
    subject: Type.Optional(Type.String({ maxLength: 1000 })),
    keywords: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 })),
    creator: Type.Optional(Type.String({ maxLength: 1000 })),
    producer: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type PdfMetadata = Static<typeof PdfMetadata>;
