import { Compile } from 'typebox/compile';
import { RE2JS } from 're2js';
import type { FieldProblem } from './errors.ts';
import { DEFAULT_DOOR_LIMITS, limitProblem, measureJson, type DoorLimits } from './door-limits.ts';

type Validator = ReturnType<typeof Compile>;

/**
 * Compiled validators by schema text: a template's schema is compiled once per process. Every
 * `pattern` is compiled for RE2 (see LinearRegExp), never for the backtracking engine.
 */
const cache = new Map<string, Validator>();
const CACHE_LIMIT = 500;

function validatorFor(schema: Record<string, unknown>): Validator {
  const key = JSON.stringify(schema);
  let v = cache.get(key);
  if (!v) {
    v = Compile(withLinearPatterns(schema) as Parameters<typeof Compile>[0]);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, v);
  }
  return v;
}

const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/** Longest `pattern` accepted; RE2 compiles and runs it in time linear in the input. */
export const MAX_PATTERN_LENGTH = 512;

/**
 * Keywords outside the subset Pressroom runs. `patternProperties` would hand a tenant regular
 * expression to the backtracking engine (TypeBox builds its own RegExp from the keys); the
 * dynamic and anchor forms make `$ref` resolution something other than a JSON pointer walk.
 */
const REFUSED_KEYWORDS = ['patternProperties', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$anchor', '$id'];

/**
 * Why a declared `dataSchema` cannot be used, as field problems under `prefix`; empty when it
 * is usable. Beyond being a JSON Schema of an object, it must stay inside the subset whose
 * validation cost is bounded before it is ever compiled: its size and nesting, every `$ref`
 * local and acyclic, its size once every `$ref` is followed (chained `anyOf`/`$ref` fan-out
 * grows exponentially), and every `pattern` a regular expression RE2 accepts (no lookaround,
 * no backreference), so it can be matched in linear time. It is checked without compiling:
 * compiling and validating happen off the event loop (see apps/ingress, data validator).
 */
export function dataSchemaProblems(
  schema: Record<string, unknown>,
  limits: Pick<DoorLimits, 'schemaBytes' | 'schemaDepth' | 'schemaNodes'> = DEFAULT_DOOR_LIMITS,
  prefix = 'dataSchema',
): FieldProblem[] {
  const m = measureJson(schema, { depth: limits.schemaDepth, bytes: limits.schemaBytes });
  if (m.exceeded === 'depth') return [limitProblem(prefix, 'is nested deeper than', 'schemaDepth', limits.schemaDepth)];
  if (m.exceeded === 'bytes') return [limitProblem(prefix, 'is larger (as JSON) than', 'schemaBytes', limits.schemaBytes)];
  const problems: FieldProblem[] = [];
  if (schema.type !== undefined && schema.type !== 'object')
    problems.push({ field: `${prefix}.type`, message: 'must be "object": data is an object' });
  walk(schema, prefix, problems);
  if (problems.length) return problems;
  return expansionProblems(schema, limits, prefix);
}

/** Compiles a schema (already vetted) once, so its use can fail before it is stored; the message when it cannot. */
export function compileProblem(schema: Record<string, unknown>): string | undefined {
  try {
    validatorFor(schema).Check({});
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Keywords whose values are data (or names), not subschemas. */
const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);
/** Enough problems to fix at once; a schema with more is refused as soon as they are found. */
const MAX_PROBLEMS = 20;

/**
 * Checks every subschema. The path is kept as a stack of segments and joined only for a
 * problem, so a long property name cannot make the walk quadratic.
 */
function walk(root: Record<string, unknown>, prefix: string, problems: FieldProblem[]): void {
  const segs: string[] = [];
  const field = (kw: string) => [prefix, ...segs, kw].join('.');
  const add = (kw: string, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ field: field(kw), message });
  };
  const visit = (value: unknown, context: 'schema' | 'names' | 'value'): void => {
    if (problems.length >= MAX_PROBLEMS || context === 'value' || typeof value !== 'object' || value === null) return;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
    if (context === 'schema' && !Array.isArray(value)) schemaKeywordProblems(root, value as Record<string, unknown>, add);
    for (const [k, v] of entries) {
      if (typeof v !== 'object' || v === null) continue;
      // Under `properties` (and the like) keys are names and each value is a schema; under
      // `enum`/`const`/`default` everything is a value.
      const next =
        context === 'names' || Array.isArray(value)
          ? 'schema'
          : VALUE_KEYWORDS.has(k)
            ? 'value'
            : NAMES_KEYWORDS.has(k)
              ? 'names'
              : 'schema';
      segs.push(k);
      visit(v, next);
      segs.pop();
    }
  };
  visit(root, 'schema');
}

const NAMES_KEYWORDS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);

function schemaKeywordProblems(
  root: Record<string, unknown>,
  o: Record<string, unknown>,
  add: (kw: string, message: string) => void,
): void {
  if ('type' in o) {
    const types = Array.isArray(o.type) ? o.type : [o.type];
    if (!types.every((t) => typeof t === 'string' && JSON_TYPES.has(t))) {
      add('type', 'must name JSON types (object, array, string, number, integer, boolean, null)');
    }
  }
  for (const kw of ['required', 'enum'] as const) {
    if (kw in o && !Array.isArray(o[kw])) add(kw, 'must be an array');
  }
  for (const kw of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    if (kw in o && typeof o[kw] !== 'number') add(kw, 'must be a number');
  }
  for (const kw of REFUSED_KEYWORDS) {
    if (kw in o) add(kw, 'is not supported by this service');
  }
  if ('$ref' in o) {
    if (typeof o.$ref !== 'string' || !o.$ref.startsWith('#')) add('$ref', 'may only point inside the schema (#...)');
    else if (resolvePointer(root, o.$ref) === undefined) add('$ref', 'points to nothing in the schema');
  }
  if ('pattern' in o) {
    const problem = patternProblem(o.pattern);
    if (problem) add('pattern', problem);
  }
}

function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'must be a string';
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch {
    return 'must be a regular expression without lookaround or backreferences (RE2 syntax)';
  }
}

/** The value a local `$ref` (`#`, `#/a/b`, with `~0`/`~1` escapes) points to. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (typeof cur !== 'object' || cur === null || !Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

class Refused extends Error {
  readonly problem: FieldProblem;
  constructor(problem: FieldProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

/**
 * The schema's size and height with every `$ref` replaced by what it points to. Each target is
 * measured once (memoised), so this is linear in the schema; a `$ref` reached again while it is
 * being measured is a cycle, refused (recursive schemas can validate in unbounded time).
 */
function expansionProblems(
  schema: Record<string, unknown>,
  limits: Pick<DoorLimits, 'schemaDepth' | 'schemaNodes'>,
  prefix: string,
): FieldProblem[] {
  const measured = new Map<string, { size: number; height: number }>();
  const inProgress = new Set<string>();
  const segs: string[] = [];
  const here = () => [prefix, ...segs].join('.');
  const tooDeep = () => new Refused(limitProblem(here(), 'is nested, following its $refs, deeper than', 'schemaDepth', limits.schemaDepth));
  let total = 0;
  const visit = (v: unknown, depth: number): { size: number; height: number } => {
    if (depth > limits.schemaDepth) throw tooDeep();
    if (typeof v !== 'object' || v === null) return { size: 1, height: 0 };
    let size = 1;
    let height = 0;
    const add = (r: { size: number; height: number }) => {
      size += r.size;
      height = Math.max(height, r.height + 1);
    };
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v as Record<string, unknown>);
    for (const [k, child] of entries) {
      // Definitions count where they are used, not where they are written.
      if (k === '$defs' || k === 'definitions') continue;
      segs.push(k);
      add(visit(child, depth + 1));
      segs.pop();
    }
    const ref = !Array.isArray(v) ? (v as Record<string, unknown>).$ref : undefined;
    if (typeof ref === 'string') {
      segs.push('$ref');
      if (inProgress.has(ref)) throw new Refused({ field: here(), message: 'refers back to itself (recursive schemas are not supported)' });
      let r = measured.get(ref);
      if (!r) {
        inProgress.add(ref);
        r = visit(resolvePointer(schema, ref), depth + 1);
        inProgress.delete(ref);
        measured.set(ref, r);
      }
      if (depth + r.height > limits.schemaDepth) throw tooDeep();
      segs.pop();
      add(r);
    }
    total += 1;
    if (size > limits.schemaNodes || total > limits.schemaNodes * 4) {
      throw new Refused(
        limitProblem(prefix, 'following its $refs, has more subschemas and values than', 'schemaNodes', limits.schemaNodes),
      );
    }
    return { size, height };
  };
  try {
    visit(schema, 0);
    return [];
  } catch (err) {
    if (err instanceof Refused) return [err.problem];
    throw err;
  }
}

/**
 * A RegExp whose `test` runs RE2 (linear time in the input): TypeBox accepts a RegExp object
 * as `pattern` and calls only its `test`, so tenant patterns never reach the backtracking engine.
 */
class LinearRegExp extends RegExp {
  readonly #re2: RE2JS;
  constructor(pattern: string) {
    super('(?:)');
    this.#re2 = RE2JS.compile(pattern);
  }
  override test(input: string): boolean {
    return this.#re2.test(input);
  }
  override toString(): string {
    return `/${this.#re2.pattern()}/`;
  }
}

/** A copy of a vetted schema with every `pattern` keyword's string replaced by a LinearRegExp. */
export function withLinearPatterns<T>(schema: T, context: 'schema' | 'names' | 'value' = 'schema'): T {
  if (context === 'value' || typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return (schema as unknown[]).map((v) => withLinearPatterns(v, 'schema')) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (context === 'schema' && k === 'pattern' && typeof v === 'string') out[k] = new LinearRegExp(v);
    else
      out[k] = withLinearPatterns(
        v,
        context === 'names' ? 'schema' : VALUE_KEYWORDS.has(k) ? 'value' : NAMES_KEYWORDS.has(k) ? 'names' : 'schema',
      );
  }
  return out as T;
}

/** A validation error as TypeBox reports it (also the shape the validation worker sends back). */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/**
 * Checks a render's `data` against the template's schema and names each variable that is
 * missing or of the wrong type, as `data.<path>`: one entry per field. Runs on the calling
 * thread: meant for the schemas Pressroom infers itself (linear to check); a tenant's declared
 * schema is checked off the event loop with the same mapping (`schemaErrorProblems`).
 */
export function dataProblems(schema: Record<string, unknown>, data: unknown): FieldProblem[] {
  const validator = validatorFor(schema);
  if (validator.Check(data)) return [];
  return schemaErrorProblems(validator.Errors(data) as Iterable<SchemaError>);
}

export function schemaErrorProblems(errors: Iterable<SchemaError>): FieldProblem[] {
  const byField = new Map<string, string>();
  for (const e of errors) {
    const base = ['data', ...e.instancePath.split('/').filter(Boolean)].join('.');
    if (e.keyword === 'required') {
      for (const name of (e.params.requiredProperties as string[] | undefined) ?? []) byField.set(`${base}.${name}`, 'is required');
    } else if (e.keyword === 'boolean' || e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      if (!byField.has(base)) byField.set(base, e.message);
    } else if (e.keyword === 'pattern') {
      byField.set(base, 'does not match the pattern the template declares');
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
