/**
 * The form in which an event schema is registered: what any outside reader compiles. Readers
 * such as @kafkajs/confluent-schema-registry compile it with a default (strict, draft-07) Ajv,
 * which knows no `format` (it is a plugin) and refuses a schema naming one. So each format
 * becomes the equivalent `pattern`, the draft is named, and the constraint survives.
 * Our own readers still check the full TypeBox schema (formats included) after decoding.
 */
const FORMAT_PATTERNS: Record<string, string> = {
  'date-time': '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
  uuid: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
};

export const REGISTERED_SCHEMA_DRAFT = 'http://json-schema.org/draft-07/schema#';

export function registeredSchemaOf(schema: unknown): Record<string, unknown> {
  const portable = portableSchema(JSON.parse(JSON.stringify(schema)) as unknown, '#') as Record<string, unknown>;
  return { $schema: REGISTERED_SCHEMA_DRAFT, ...portable };
}

function portableSchema(node: unknown, path: string): unknown {
  if (Array.isArray(node)) return node.map((n, i) => portableSchema(n, `${path}/${i}`));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'format' && typeof value === 'string') {
      const pattern = FORMAT_PATTERNS[value];
      // Fails the build's tests, not a reader at run time, when a new format appears.
      if (!pattern) throw new Error(`no portable pattern for format "${value}" at ${path}`);
      if ('pattern' in node) continue; // a pattern already constrains it
      out.pattern = pattern;
    } else {
      out[key] = portableSchema(value, `${path}/${key}`);
    }
  }
  return out;
}
