// Validates docker-compose.yml against the Compose Specification's JSON schema
// (infra/compose/compose-spec.json, from github.com/compose-spec/compose-spec schema/compose-spec.json),
// after YAML anchors and merge keys are resolved as Compose resolves them, and checks what the schema
// cannot: every service has a healthcheck, and no image is unpinned (`latest` or no tag).
//   npx tsx scripts/check-compose.ts [file]      (part of `npm run lint`)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '..');

let compiled: ValidateFunction | undefined;
function validator(): ValidateFunction {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(join(root, 'infra', 'compose', 'compose-spec.json'), 'utf8')) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  // The spec names its meta-schema by its https address; it is draft-07, which Ajv knows by the http one.
  ajv.addMetaSchema({ ...draft07, $id: 'https://json-schema.org/draft-07/schema' });
  return (compiled = ajv.compile(schema));
}

/** Every problem of a compose file (empty when it is valid). */
export function composeProblems(text: string): string[] {
  const validate = validator();
  let doc: unknown;
  try {
    doc = parse(text, { merge: true });
  } catch (err) {
    return [`not YAML: ${(err as Error).message}`];
  }
  const problems = validate(doc)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  const services = (doc as { services?: Record<string, Record<string, unknown>> }).services ?? {};
  for (const [name, svc] of Object.entries(services)) {
    if (!svc.healthcheck) problems.push(`/services/${name} has no healthcheck`);
    const image = typeof svc.image === 'string' ? svc.image : undefined;
    if (image && !svc.build && (!/:[^/]+$/.test(image) || image.endsWith(':latest')))
      problems.push(`/services/${name} image ${image} is not pinned to a version`);
  }
  return problems;
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  const file = resolve(process.argv[2] ?? join(root, 'docker-compose.yml'));
  const problems = composeProblems(readFileSync(file, 'utf8'));
  if (problems.length) {
    process.stderr.write(`${file} does not follow the Compose Specification:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`${file}: valid Compose file\n`);
}
