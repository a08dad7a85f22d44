import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { validationError, type FieldProblem } from '@pressroom/domain';

/**
 * Compiles a body schema once and returns a parser that either yields the typed value or
 * throws VALIDATION_FAILED naming each bad field (`data.items`, `s3_key`, …).
 */
export function bodyParser<T extends TSchema>(schema: T): (value: unknown) => Static<T> {
  const validator = Compile(schema);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw validationError([{ field: '(body)', message: 'must be a JSON object' }]);
    }
    if (validator.Check(value)) return value;
    throw validationError(problems(validator.Errors(value)));
  };
}

interface TypeBoxError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function problems(errors: Iterable<TypeBoxError>): FieldProblem[] {
  const byField = new Map<string, string>();
  for (const e of errors) {
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'boolean') continue; // reported again by `additionalProperties`
    if (e.keyword === 'required') {
      for (const name of (e.params.requiredProperties as string[] | undefined) ?? []) {
        byField.set(join(base, name), 'is required');
      }
    } else if (e.keyword === 'additionalProperties') {
      for (const name of (e.params.additionalProperties as string[] | undefined) ?? []) {
        byField.set(join(base, name), 'is not a known field');
      }
    } else if (!byField.has(base || '(body)')) {
      byField.set(base || '(body)', humanize(e));
    }
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

function join(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}

function humanize(e: TypeBoxError): string {
  if (e.keyword === 'pattern') return 'has an invalid format';
  if (e.keyword === 'format') return `must be a valid ${String(e.params.format)}`;
  return e.message;
}
