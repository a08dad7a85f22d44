import { Compile } from 'typebox/compile';
import type { FieldProblem } from './errors.ts';

type Validator = ReturnType<typeof Compile>;

/** Compiled validators by schema text: a template's schema is compiled once per process. */
const cache = new Map<string, Validator>();
const CACHE_LIMIT = 500;

function validatorFor(schema: Record<string, unknown>): Validator {
  const key = JSON.stringify(schema);
  let v = cache.get(key);
  if (!v) {
    v = Compile(schema as Parameters<typeof Compile>[0]);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, v);
  }
  return v;
}

const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/**
 * Why a declared `dataSchema` cannot be used, as field problems under `prefix`; empty when it
 * is usable. It must describe an object (the `data` of a render is one), every `type` keyword
 * must name JSON types, and TypeBox must compile it.
 */
export function dataSchemaProblems(schema: Record<string, unknown>, prefix = 'dataSchema'): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (schema.type !== undefined && schema.type !== 'object')
    problems.push({ field: `${prefix}.type`, message: 'must be "object": data is an object' });
  walk(schema, prefix, problems);
  if (problems.length) return problems;
  try {
    validatorFor(schema).Check({});
  } catch (err) {
    problems.push({ field: prefix, message: `is not a usable JSON Schema: ${(err as Error).message}` });
  }
  return problems;
}

function walk(value: unknown, path: string, problems: FieldProblem[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${path}.${i}`, problems));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, unknown>;
  if ('type' in o && !(path.endsWith('.properties') || path.includes('.properties.type'))) {
    const types = Array.isArray(o.type) ? o.type : [o.type];
    if (!types.every((t) => typeof t === 'string' && JSON_TYPES.has(t))) {
      problems.push({ field: `${path}.type`, message: 'must name JSON types (object, array, string, number, integer, boolean, null)' });
    }
  }
  for (const kw of ['required', 'enum'] as const) {
    if (kw in o && !Array.isArray(o[kw])) problems.push({ field: `${path}.${kw}`, message: 'must be an array' });
  }
  for (const kw of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    if (kw in o && typeof o[kw] !== 'number') problems.push({ field: `${path}.${kw}`, message: 'must be a number' });
  }
  if ('$ref' in o && typeof o.$ref === 'string' && !o.$ref.startsWith('#')) {
    problems.push({ field: `${path}.$ref`, message: 'may only point inside the schema (#...)' });
  }
  for (const [k, v] of Object.entries(o)) if (typeof v === 'object' && v !== null) walk(v, `${path}.${k}`, problems);
}

/**
 * Checks a render's `data` against the template's schema (declared or inferred) and names
 * each variable that is missing or of the wrong type, as `data.<path>`: one entry per field.
 */
export function dataProblems(schema: Record<string, unknown>, data: unknown): FieldProblem[] {
  const validator = validatorFor(schema);
  if (validator.Check(data)) return [];
  const byField = new Map<string, string>();
  for (const e of validator.Errors(data) as Iterable<{
    keyword: string;
    instancePath: string;
    params: Record<string, unknown>;
    message: string;
  }>) {
    const base = ['data', ...e.instancePath.split('/').filter(Boolean)].join('.');
    if (e.keyword === 'required') {
      for (const name of (e.params.requiredProperties as string[] | undefined) ?? []) byField.set(`${base}.${name}`, 'is required');
    } else if (e.keyword === 'boolean' || e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      if (!byField.has(base)) byField.set(base, e.message);
    } else {
      byField.set(base, e.keyword === 'type' ? `must be ${describeType(e.params.type)}` : e.message);
    }
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

function describeType(t: unknown): string {
  const names = Array.isArray(t) ? t : [t];
  return names.map((n) => (n === 'array' || n === 'object' || n === 'integer' ? `an ${n}` : `a ${String(n)}`)).join(' or ');
}
