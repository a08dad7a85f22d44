import { allRoutes, componentSchemas } from './api-routes.ts';
import type { ResponseSpec, RouteSpec, SchemaRef } from './http/route-table.ts';
import { errorAnswer } from './openapi-examples.ts';

const schemaOf = (s: SchemaRef) => (typeof s === 'string' ? { $ref: `#/components/schemas/${s}` } : s);

/**
 * The errors every route of a kind can answer, in the one error shape: added here from what the
 * table says of a route (its auth, method, whether it appends to the log), so no route forgets one.
 */
function commonErrors(spec: RouteSpec): Record<string, ResponseSpec> {
  const out: Record<string, ResponseSpec> = {};
  if (spec.mount === 'storage') return out;
  const jsonBody = spec.method === 'post' || spec.method === 'put';
  if (jsonBody && spec.mount !== 'open') {
    out['400'] = errorAnswer('Malformed JSON or invalid fields (`details` names each).', 'VALIDATION_FAILED', 'The request is invalid.');
    out['413'] = errorAnswer(
      'Body above the size limit (PRESSROOM_MAX_BODY_BYTES).',
      'PAYLOAD_TOO_LARGE',
      'The request body is larger than this service accepts.',
    );
    out['415'] = errorAnswer('Body is not application/json.', 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
  if (spec.auth === 'apiKey') out['401'] = errorAnswer('Missing or unknown API key.', 'UNAUTHENTICATED', 'The API key is not valid.');
  if (spec.auth === 'apiKey') {
    const scope = spec.scope ?? 'render';
    out['403'] = errorAnswer(
      `FORBIDDEN: the API key lacks the ${scope} scope.`,
      'FORBIDDEN',
      `This API key lacks the ${scope} scope; use a key that has it.`,
    );
    out['429'] = errorAnswer(
      'RATE_LIMITED: the API key sent more requests than its plan allows; see Retry-After and the RateLimit header.',
      'RATE_LIMITED',
      'Too many requests for this API key; retry after the time in Retry-After.',
    );
  }
  if (spec.auth === 'admin') out['401'] = errorAnswer('Missing or wrong admin token.', 'UNAUTHENTICATED', 'The admin token is not valid.');
  if (spec.auth === 'apiKey' || spec.auth === 'admin') {
    out['503'] = spec.appendsToLog
      ? errorAnswer(
          'The log did not take the request in time (see Retry-After), and it proves the request was not taken: it is ' +
            'never carried out. Retrying with the same Idempotency-Key is a new attempt.',
          'LOG_UNAVAILABLE',
          'The event log cannot take the request now.',
        )
      : errorAnswer(
          'A store this request reads does not answer now (see Retry-After).',
          'DEPENDENCY_UNAVAILABLE',
          'A dependency is unavailable.',
        );
  }
  out['500'] = errorAnswer('A failure on our side.', 'INTERNAL', 'Something went wrong on our side.');
  return out;
}

/** `example`, or the `examples` map of an answer with several shapes (ResponseSpec.examples). */
function examplesOf(r: ResponseSpec): { example?: unknown; examples?: ResponseSpec['examples'] } {
  if (r.examples !== undefined) return { examples: r.examples };
  return r.example !== undefined ? { example: r.example } : {};
}

function response(r: ResponseSpec) {
  const content = r.content
    ? r.content
    : r.schema !== undefined
      ? { 'application/json': { schema: schemaOf(r.schema), ...examplesOf(r) } }
      : undefined;
  return { description: r.description, ...(r.headers ? { headers: r.headers } : {}), ...(content ? { content } : {}) };
}

function operation(spec: RouteSpec) {
  const pathParams = [...spec.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    ...(spec.pathParams?.[m[1] ?? ''] ? { description: spec.pathParams[m[1] ?? ''] } : {}),
    schema: { type: 'string' },
  }));
  const parameters = [...pathParams, ...(spec.parameters ?? [])];
  const responses = { ...commonErrors(spec), ...spec.responses };
  const sorted = Object.fromEntries(
    Object.entries(responses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, response(v)]),
  );
  const description = [spec.description, spec.conditional].filter(Boolean).join(' ');
  const body = spec.body;
  const bodyMedia = spec.mount === 'storage' ? 'application/pdf' : 'application/json';
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    ...(description ? { description } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: body.required ?? true,
            content: { [bodyMedia]: { schema: schemaOf(body.schema), ...(body.example !== undefined ? { example: body.example } : {}) } },
          },
        }
      : {}),
    responses: sorted,
    ...(spec.callbacks ? { callbacks: spec.callbacks } : {}),
    security: spec.auth === 'apiKey' ? [{ apiKey: [] }] : spec.auth === 'admin' ? [{ adminToken: [] }] : [],
  };
}

const tags = [
  { name: 'Renders', description: 'Templates and HTML to PDF or PNG: sync (wait for the file) or async (webhook).' },
  { name: 'Batches', description: 'Up to 20 renders in one request, optionally merged into one PDF.' },
  { name: 'PDF tools', description: 'Merge, split, compress, metadata, Markdown → PDF, through the same pipeline as renders.' },
  { name: 'Templates', description: 'Versioned templates (Eta), and previews.' },
  { name: 'Assets', description: 'Fonts and images your templates use.' },
  { name: 'Integration', description: 'Endpoints in the shapes clients of the pdf noodle / pdforge API family expect.' },
  { name: 'Webhooks', description: 'Signing secret, deliveries and replays.' },
  { name: 'History', description: 'The audit trail of renders, read from the log.' },
  { name: 'Files', description: 'Signed links to rendered files and uploads (embedded profile).' },
  { name: 'Admin', description: 'The operator’s API (PRESSROOM_ADMIN_TOKEN).' },
  { name: 'Operations', description: 'Health, metrics and this document.' },
];

/**
 * A request schema with its `default`s said in words instead. Generators (openapi-typescript with
 * its default options) read a default as "always present" and make the field required, so a client
 * could not send `{templateId, data}` without `convertToImage`; the service applies the defaults.
 */
function defaultsInWords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(defaultsInWords);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  const { default: dflt, ...rest } = schema as Record<string, unknown>;
  // A member named "default" of `properties` is a schema (an object), not the keyword.
  const isKeyword = 'default' in schema && (typeof dflt !== 'object' || dflt === null || Array.isArray(dflt));
  for (const [k, v] of Object.entries(isKeyword ? rest : (schema as Record<string, unknown>))) out[k] = defaultsInWords(v);
  if (isKeyword) {
    const said = `Default: ${JSON.stringify(dflt)}.`;
    out.description = typeof out.description === 'string' ? `${out.description} ${said}` : said;
  }
  return out;
}

/** The document's component schemas; those that are request bodies with their defaults in words. */
function components(): Record<string, unknown> {
  const requestBodies = new Set(
    (allRoutes as readonly RouteSpec[]).flatMap((r) => (typeof r.body?.schema === 'string' ? [r.body.schema] : [])),
  );
  return Object.fromEntries(
    Object.entries(componentSchemas).map(([name, schema]) => {
      const plain: unknown = JSON.parse(JSON.stringify(schema));
      return [name, requestBodies.has(name) ? defaultsInWords(plain) : plain];
    }),
  );
}

/** The OpenAPI document of the service, generated from the route table (api-routes.ts). */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of allRoutes as readonly RouteSpec[]) (paths[spec.path] ??= {})[spec.method] = operation(spec);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pressroom',
      version: '1.0.0',
      description:
        'Render templates and HTML to PDF or PNG. Every /v1 endpoint needs `Authorization: Bearer <API key>`; ' +
        'every error is `{message, error: {code, message, details?}}`.',
    },
    servers: [{ url: serverUrl }],
    tags,
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A tenant API key (`prk_…`).' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'PRESSROOM_ADMIN_TOKEN.' },
      },
      schemas: components(),
    },
  };
}
