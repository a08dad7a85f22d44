import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '@pressroom/ingress';

/**
 * The contract check of the e2e suites: every answer the tests' API client (api-client.ts) gets from
 * a documented operation is checked against the OpenAPI document the service serves (the same
 * generator, `openApiDocument`): its status must be one the operation documents, and a JSON body must
 * match that status's schema. A call to a path or method the document does not have (a test probing
 * an unknown endpoint) is not checked here; that every documented operation is served is checked by
 * embedded-errors.e2e.spec.ts.
 */

type Schema = Record<string, unknown>;
interface Operation {
  operationId: string;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const DOC_ID = 'pressroom-openapi';

/** `#/components/…` → `pressroom-openapi#/components/…`, so an inline response schema resolves its refs in the document. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : anchored(v),
    ]),
  );
}

interface Matcher {
  method: string;
  template: string;
  pattern: RegExp;
  op: Operation;
}

export interface ContractChecker {
  /** Problems of one answer (empty when it keeps the contract, or when the document has no such operation). */
  check(method: string, url: string, status: number, contentType: string | null, body: unknown): string[];
  /** Problems of one JSON request body against the operation's documented request schema (the document's own examples). */
  checkRequest(method: string, url: string, body: unknown): string[];
}

export function contractChecker(doc: Doc): ContractChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: DOC_ID, components: doc.components });
  const matchers: Matcher[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(ops)) matchers.push({ method: method.toUpperCase(), template, pattern, op });
  }
  // A literal path wins over a template (`/v1/pdf/batch/status/{id}` vs `/v1/pdf/{requestId}/…`): fewer parameters first.
  matchers.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  const compiled = new Map<string, ValidateFunction>();
  const find = (method: string, url: string) => {
    const path = new URL(url).pathname;
    return matchers.find((x) => x.method === method.toUpperCase() && x.pattern.test(path));
  };
  /** Problems of a body against a schema; by schema, not by operation: the many answers sharing one (ErrorBody) compile once. */
  const problemsOf = (where: string, schema: Schema, body: unknown): string[] => {
    const id = JSON.stringify(schema);
    let validate = compiled.get(id);
    if (!validate) {
      validate = ajv.compile(anchored(schema) as Schema);
      compiled.set(id, validate);
    }
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
    return [`${where}: body does not match the documented schema: ${errors.join('; ')}; body: ${JSON.stringify(body).slice(0, 400)}`];
  };

  return {
    check(method, url, status, contentType, body) {
      const m = find(method, url);
      if (!m) return [];
      const where = `${method.toUpperCase()} ${new URL(url).pathname} (${m.op.operationId}) answered ${status}`;
      const responses = m.op.responses;
      const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
      if (!key) return [`${where}: status not documented (documented: ${Object.keys(responses).join(', ')})`];
      const media = responses[key]?.content;
      const type = contentType?.split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json' || body === undefined) return [];
      const schema = media?.['application/json']?.schema;
      if (!schema) return [`${where}: a JSON body where the document has none (${Object.keys(media ?? {}).join(', ') || 'no content'})`];
      return problemsOf(where, schema, body);
    },
    checkRequest(method, url, body) {
      const m = find(method, url);
      if (!m) return [];
      const where = `${method.toUpperCase()} ${new URL(url).pathname} (${m.op.operationId}) sent`;
      const schema = m.op.requestBody?.content?.['application/json']?.schema;
      if (!schema) return [`${where}: a JSON body where the document has none`];
      return problemsOf(where, schema, body);
    },
  };
}

let shared: ContractChecker | undefined;
/** The checker of the service's own document (built once per test file). */
export function serviceContract(): ContractChecker {
  shared ??= contractChecker(openApiDocument('http://localhost:3000') as unknown as Doc);
  return shared;
}

/** Thrown by the tests' API client when an answer breaks the documented contract. */
export class ContractViolation extends Error {
  override name = 'ContractViolation';
}
