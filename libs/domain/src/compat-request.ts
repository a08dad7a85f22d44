import { canonicalLength, canonicalPaperFormat } from './paper.ts';

/**
 * Render request bodies as the clients of this API family send them, read as they were meant
 * (the real API is lenient; see README "Coming from pdf noodle / pdforge"):
 *
 * - **Placeholders**: integration platforms send every field of their form, with `null`, `""` or
 *   `false` for the ones left empty. An optional field holding one of them is absent. A boolean
 *   keeps `false` (it means false); only `null` and `""` are placeholders there.
 * - **JSON as text**: `data`, `metadata` and `pdfParams` may arrive as JSON strings; a string that
 *   parses to an object is that object. Booleans and numbers may arrive as strings ("true", "3600").
 * - **Puppeteer's page.pdf() spellings** inside `pdfParams`: numbers (and unitless strings) are CSS
 *   px for `width`, `height` and `margin.*`; units in any case; `format` in any case.
 * - **Unknown fields** are not refused: they are dropped and listed (dotted paths) in `unknown`, for
 *   the response header that reports them (`Pressroom-Ignored-Fields`) or, when the caller asks for
 *   strictness, for a 400.
 *
 * Nothing else changes: what is still wrong after this (a mistyped value) is the schema's to refuse.
 * Pure: the input is not modified.
 */
export type CompatEndpoint = 'template-sync' | 'template-async' | 'html-sync' | 'html-async';

export interface CompatRead {
  body: unknown;
  /** Fields dropped because no endpoint of ours knows them, as dotted paths (`pdfParams.path`). */
  unknown: string[];
}

type Kind = 'required' | 'string' | 'boolean' | 'integer' | 'number' | 'object' | 'array' | 'passthrough';

const TEMPLATE_FIELDS: Record<string, Kind> = {
  templateId: 'required',
  templateVersion: 'integer',
  data: 'object',
  debug: 'boolean',
};
const HTML_FIELDS: Record<string, Kind> = { html: 'required' };
const COMMON_FIELDS: Record<string, Kind> = {
  convertToImage: 'boolean',
  metadata: 'object',
  s3_bucket: 'string',
  s3_key: 'string',
  pdfParams: 'object',
  hasCover: 'boolean',
  signedUrlExpiresIn: 'integer',
  externalId: 'string',
  cache: 'boolean',
};

const PDF_PARAMS_FIELDS: Record<string, Kind> = {
  format: 'string',
  width: 'passthrough',
  height: 'passthrough',
  landscape: 'boolean',
  margin: 'object',
  scale: 'number',
  printBackground: 'boolean',
  pageRanges: 'string',
  preferCSSPageSize: 'boolean',
  emulatedMedia: 'string',
  hasCover: 'boolean',
  displayHeaderFooter: 'boolean',
  // '' is a header of its own (Puppeteer's way to print none), not a placeholder: see below.
  headerTemplate: 'passthrough',
  footerTemplate: 'passthrough',
  outline: 'boolean',
  tagged: 'boolean',
  omitBackground: 'boolean',
  timeout: 'integer',
};
const MARGIN_SIDES = ['top', 'right', 'bottom', 'left'] as const;
const METADATA_FIELDS: Record<string, Kind> = {
  title: 'string',
  author: 'string',
  subject: 'string',
  keywords: 'passthrough',
  creator: 'string',
  producer: 'string',
};

function fieldsOf(endpoint: CompatEndpoint): Record<string, Kind> {
  const source = endpoint.startsWith('template') ? TEMPLATE_FIELDS : HTML_FIELDS;
  const webhook: Record<string, Kind> = endpoint.endsWith('async') ? { webhook: 'required' } : {};
  return { ...source, ...COMMON_FIELDS, ...webhook };
}

/** Whether a value is an empty-form placeholder for an optional field of this kind. */
function isPlaceholder(value: unknown, kind: Kind): boolean {
  if (value === null || value === '') return true;
  return value === false && kind !== 'boolean';
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One value of a known kind, read leniently; undefined drops the field. */
function readValue(value: unknown, kind: Kind): unknown {
  if (kind === 'required') return value === null ? undefined : value;
  if (kind !== 'passthrough' && isPlaceholder(value, kind)) return undefined;
  switch (kind) {
    case 'boolean':
      if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
      return value;
    case 'integer':
    case 'number':
      if (typeof value === 'string' && /^\s*-?[0-9]+(\.[0-9]+)?\s*$/.test(value)) return Number(value);
      return value;
    case 'object':
      if (typeof value === 'string') {
        try {
          const parsed: unknown = JSON.parse(value);
          return isPlainObject(parsed) ? parsed : value;
        } catch {
          return value;
        }
      }
      return value;
    case 'array':
      // A form field holds text: JSON text of a list is that list; any other text is a list of
      // one (a single URL, keywords typed as "a, b", which a PDF stores as one string anyway).
      if (typeof value === 'string') {
        try {
          const parsed: unknown = JSON.parse(value);
          if (Array.isArray(parsed)) return parsed;
        } catch {
          // not JSON: a list of one, below
        }
        return [value];
      }
      return value;
    default:
      return value;
  }
}

function readObject(
  raw: Record<string, unknown>,
  fields: Record<string, Kind>,
  prefix: string,
  unknown: string[],
  inner: (key: string, value: unknown) => unknown = (_, v) => v,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const kind = fields[key];
    if (!Object.hasOwn(fields, key) || kind === undefined) {
      unknown.push(prefix + key);
      continue;
    }
    const read = readValue(value, kind);
    if (read === undefined) continue;
    const v = inner(key, read);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function readPdfParams(raw: Record<string, unknown>, unknown: string[]): Record<string, unknown> {
  return readObject(raw, PDF_PARAMS_FIELDS, 'pdfParams.', unknown, (key, value) => {
    switch (key) {
      case 'format':
        return typeof value === 'string' ? (canonicalPaperFormat(value) ?? value) : value;
      case 'width':
      case 'height':
        return isPlaceholder(value, 'string') ? undefined : canonicalLength(value);
      case 'headerTemplate':
      case 'footerTemplate':
        return value === null || value === false ? undefined : value;
      case 'margin': {
        if (!isPlainObject(value)) return value;
        const margin: Record<string, unknown> = {};
        for (const [side, length] of Object.entries(value)) {
          if (!(MARGIN_SIDES as readonly string[]).includes(side)) {
            unknown.push(`pdfParams.margin.${side}`);
            continue;
          }
          if (!isPlaceholder(length, 'string')) margin[side] = canonicalLength(length);
        }
        return margin;
      }
      default:
        return value;
    }
  });
}

function readMetadata(raw: Record<string, unknown>, unknown: string[]): Record<string, unknown> {
  return readObject(raw, METADATA_FIELDS, 'metadata.', unknown, (key, value) => {
    if (key !== 'keywords') return value;
    if (isPlaceholder(value, 'string')) return undefined;
    // A form field holds one string: "invoice, 2026" is the list ["invoice", "2026"].
    if (typeof value === 'string') {
      const list = value
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean);
      return list.length ? list : undefined;
    }
    return value;
  });
}

/** Reads a render request body leniently (see above). A body that is not an object is left to the schema. */
export function readCompatRenderBody(raw: unknown, endpoint: CompatEndpoint): CompatRead {
  const unknown: string[] = [];
  if (!isPlainObject(raw)) return { body: raw, unknown };
  const body = readObject(raw, fieldsOf(endpoint), '', unknown, (key, value) => {
    if (key === 'pdfParams' && isPlainObject(value)) return readPdfParams(value, unknown);
    if (key === 'metadata' && isPlainObject(value)) return readMetadata(value, unknown);
    return value;
  });
  return { body, unknown };
}

/** Bounds of `signedUrlExpiresIn`, in seconds: a minute to seven days (the longest S3 presigned link). */
export const LINK_TTL_SECONDS = { min: 60, max: 7 * 24 * 3600, default: 3600 } as const;

/** The parts of an object's JSON Schema the lenient reader needs: its members' types and the required ones. */
export interface CompatObjectSchema {
  properties: Record<string, unknown>;
  required?: readonly string[];
}

function kindOf(schema: unknown, required: boolean): Kind {
  if (required) return 'required';
  const type = isPlainObject(schema) ? schema.type : undefined;
  switch (type) {
    case 'boolean':
    case 'integer':
    case 'number':
    case 'object':
    case 'string':
    case 'array':
      return type;
    default:
      // Unions and enums: no conversion, but an empty-form placeholder still means absent.
      return 'string';
  }
}

const isObjectSchema = (schema: unknown): schema is CompatObjectSchema => isPlainObject(schema) && isPlainObject(schema.properties);

/**
 * Reads one object by its schema, members within members too (a tool's `metadata`, `pdfOptions`
 * and its `margin` are forms of their own: every field sent, the empty ones as placeholders).
 */
function readBySchema(
  raw: Record<string, unknown>,
  schema: CompatObjectSchema,
  prefix: string,
  unknown: string[],
): Record<string, unknown> {
  const required = new Set(schema.required ?? []);
  const fields = Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, kindOf(s, required.has(k))]));
  return readObject(raw, fields, prefix, unknown, (key, value) => {
    const member = schema.properties[key];
    // A required member is never a placeholder, but it is still read as meant (JSON text, "3600").
    const read = required.has(key) && value !== null && value !== '' ? (readValue(value, kindOf(member, false)) ?? value) : value;
    return isPlainObject(read) && isObjectSchema(member) ? readBySchema(read, member, `${prefix}${key}.`, unknown) : read;
  });
}

/**
 * Any other body of this API family (the PDF tools, a batch's own members) read by the same rules
 * as render bodies: placeholders dropped, JSON strings and stringly booleans and numbers read as
 * meant, unknown members dropped and listed, at every level the schema describes (`metadata.typo`).
 * The kinds come from the body's schema.
 */
export function readCompatBody(raw: unknown, schema: CompatObjectSchema): CompatRead {
  const unknown: string[] = [];
  if (!isPlainObject(raw)) return { body: raw, unknown };
  return { body: readBySchema(raw, schema, '', unknown), unknown };
}

/**
 * A batch body: its own members by `readCompatBody`, each item as a sync render body of its kind
 * (unknown fields named `items.<i>.<field>`).
 */
export function readCompatBatchBody(raw: unknown, schema: CompatObjectSchema, kind: 'template' | 'html'): CompatRead {
  const top = readCompatBody(raw, schema);
  if (!isPlainObject(top.body) || !Array.isArray(top.body.items)) return top;
  const unknown = [...top.unknown];
  const items = top.body.items.map((item, i) => {
    const read = readCompatRenderBody(item, kind === 'template' ? 'template-sync' : 'html-sync');
    unknown.push(...read.unknown.map((field) => `items.${i}.${field}`));
    return read.body;
  });
  return { body: { ...top.body, items }, unknown };
}
