import { createHash } from 'node:crypto';
import type { DataSchema, Http, TemplateVersionContent } from '@pressroom/schemas';
import {
  DEFAULT_MAX_TEMPLATE_CODE,
  DEFAULT_MAX_VARIABLE_DEPTH,
  PressroomError,
  dataSchemaProblems,
  templateSourceProblems,
  type DoorLimits,
  type FieldProblem,
  decideTemplate,
  describeVariables,
  emptyTemplateState,
  inferDataSchema,
  isDecision,
  logUnavailable,
  notFound,
  pdfParamsProblems,
  templateStateOf,
  validationError,
  versionConflict,
  type TemplateCommand,
  type TemplateHead,
  type TemplateVersionRecord,
} from '@pressroom/domain';
import type { Clock, EventLog, Ids, TemplateView, TopicNames } from '@pressroom/core';
import type { SchemaChecker } from './schema-validation/schema-checker.ts';

export interface TemplatesDeps {
  log: EventLog;
  templates: TemplateView;
  topics: TopicNames;
  ids: Ids;
  clock: Clock;
  limits: DoorLimits;
  schemas: SchemaChecker;
}

/**
 * Inferred variables by a hash of the sources: versions never change, and every
 * `GET /v1/templates` and render of a template without `dataSchema` would infer them again.
 */
const inferredCache = new Map<string, ReturnType<typeof inferDataSchema>>();
const INFERRED_CACHE_LIMIT = 1000;

function inferredVariables(
  sources: (string | undefined)[],
  bounds: { maxDepth: number; maxCode: number } = { maxDepth: DEFAULT_MAX_VARIABLE_DEPTH, maxCode: DEFAULT_MAX_TEMPLATE_CODE },
  version?: { templateId: string; version: number },
): ReturnType<typeof inferDataSchema> {
  // A stored version is named by its id and number (immutable); other sources by their hash.
  let key = `${bounds.maxDepth}/${bounds.maxCode}|`;
  if (version) key += `${version.templateId}@${version.version}`;
  else {
    const hash = createHash('sha256');
    for (const s of sources) hash.update(s === undefined ? '\u0000u' : `${s.length}:${s}`);
    key += hash.digest('base64');
  }
  let inferred = inferredCache.get(key);
  if (!inferred) {
    inferred = inferDataSchema(sources, bounds);
    if (inferredCache.size >= INFERRED_CACHE_LIMIT) inferredCache.delete(inferredCache.keys().next().value as string);
    inferredCache.set(key, inferred);
  }
  return inferred;
}

/** The variables of a version: its declared schema, or the one inferred from its sources. */
export function variablesOf(
  t: Pick<TemplateVersionContent, 'content' | 'header' | 'footer' | 'dataSchema'>,
  version?: { templateId: string; version: number },
): Http.TemplateVariables {
  if (t.dataSchema) {
    return { source: 'declared', schema: t.dataSchema, names: describeVariables(t.dataSchema).map((v) => v.name) };
  }
  const inferred = inferredVariables([t.content, t.header, t.footer], undefined, version);
  return { source: 'inferred', schema: inferred.schema, names: inferred.names };
}

export function templateResource(head: TemplateHead, v: TemplateVersionRecord): Http.TemplateResource {
  return {
    templateId: v.templateId,
    name: v.name,
    content: v.content,
    ...(v.header !== undefined ? { header: v.header } : {}),
    ...(v.footer !== undefined ? { footer: v.footer } : {}),
    ...(v.pdfParams ? { pdfParams: v.pdfParams } : {}),
    ...(v.ready ? { ready: v.ready } : {}),
    ...(v.dataSchema ? { dataSchema: v.dataSchema } : {}),
    variables: variablesOf(v, v),
    version: v.version,
    latestVersion: head.latestVersion,
    createdAt: head.createdAt,
    updatedAt: v.createdAt,
  };
}

/**
 * Why a template's content cannot be used, beyond its schema: page setup, the size of its
 * sources, its declared `dataSchema` (bounded subset, see dataSchemaProblems) or, without one,
 * variables nested deeper than the data may be. Cheap and bounded: runs on the event loop.
 */
export function templateContentProblems(
  body: { content?: string; header?: string; footer?: string; pdfParams?: Http.TemplateWriteBody['pdfParams']; dataSchema?: DataSchema },
  limits: DoorLimits,
): FieldProblem[] {
  const problems = [...pdfParamsProblems(body.pdfParams), ...templateSourceProblems(body, limits)];
  if (problems.length) return problems;
  if (body.dataSchema) return dataSchemaProblems(body.dataSchema, limits);
  return inferredVariables([body.content, body.header, body.footer], { maxDepth: limits.dataDepth, maxCode: limits.templateCodeBytes })
    .problems;
}

/**
 * Rules a template write must meet beyond its schema; throws VALIDATION_FAILED naming each
 * field. Everything is checked before anything is appended: a write that answers an error
 * changes nothing. A declared schema is compiled once on the validation worker (deadline).
 */
export async function checkTemplateContent(
  body: Parameters<typeof templateContentProblems>[0],
  limits: DoorLimits,
  schemas: SchemaChecker,
): Promise<void> {
  const problems = templateContentProblems(body, limits);
  if (problems.length) throw validationError(problems);
  if (body.dataSchema) {
    const problem = await schemas.compileProblem(body.dataSchema);
    if (problem) throw validationError([{ field: 'dataSchema', message: `is not a usable JSON Schema: ${problem}` }]);
  }
}

/**
 * Template writes as commands decided against the template's stream (`decideTemplate`): the
 * decision's events are appended to the templates topic (key templateId) with the stream
 * version it was decided on, so of two writes decided on the same version only one is
 * written and the other answers 409 (CONFLICT), in this process or any other. Once the log
 * holds the event it is applied to the view here, so the caller reads its own write.
 */
export function createTemplates(deps: TemplatesDeps) {
  /** Decides `command` on `head` (the view's state), appends with the expected version, applies. */
  async function execute(command: TemplateCommand, head: TemplateHead | undefined): Promise<void> {
    const state = command.type === 'CreateTemplate' ? emptyTemplateState : templateStateOf(head);
    const decision = decideTemplate(command, state, { eventId: deps.ids.next(), occurredAt: deps.clock.now().toISOString() });
    if (!isDecision(decision)) throw decision;
    try {
      await deps.log.append(deps.topics.templates, decision.events, { expectedVersion: decision.expectedVersion });
    } catch (err) {
      if (err instanceof PressroomError && err.code === 'CONFLICT') {
        throw versionConflict(`Template ${command.templateId}`, decision.expectedVersion);
      }
      throw err instanceof PressroomError ? err : logUnavailable(err);
    }
    for (const event of decision.events) await deps.templates.apply(event);
  }

  async function read(tenantId: string, templateId: string, version?: number) {
    const head = await deps.templates.head(tenantId, templateId);
    if (!head) throw notFound(`Template ${templateId}`);
    const v = await deps.templates.version(tenantId, templateId, version ?? head.latestVersion);
    if (!v) throw notFound(`Version ${version} of template ${templateId}`);
    return { head, version: v };
  }

  return {
    read,
    async create(tenantId: string, content: TemplateVersionContent): Promise<Http.TemplateResource> {
      await checkTemplateContent(content, deps.limits, deps.schemas);
      const templateId = `tpl_${deps.ids.next().replace(/-/g, '')}`;
      await execute({ type: 'CreateTemplate', tenantId, templateId, content }, undefined);
      const r = await read(tenantId, templateId);
      return templateResource(r.head, r.version);
    },
    /** `ifVersion`: the version the caller read and replaces (If-Match); 409 when it is no longer the latest. */
    async revise(
      tenantId: string,
      templateId: string,
      content: TemplateVersionContent,
      ifVersion?: number,
    ): Promise<Http.TemplateResource> {
      await checkTemplateContent(content, deps.limits, deps.schemas);
      const head = await deps.templates.head(tenantId, templateId);
      await execute({ type: 'ReviseTemplate', tenantId, templateId, content, ...(ifVersion !== undefined ? { ifVersion } : {}) }, head);
      const r = await read(tenantId, templateId, (head?.latestVersion ?? 0) + 1);
      return templateResource(r.head, r.version);
    },
    async remove(tenantId: string, templateId: string, ifVersion?: number): Promise<void> {
      const head = await deps.templates.head(tenantId, templateId);
      await execute({ type: 'DeleteTemplate', tenantId, templateId, ...(ifVersion !== undefined ? { ifVersion } : {}) }, head);
    },
    list: (tenantId: string) => deps.templates.list(tenantId),
    versions: (tenantId: string, templateId: string) => deps.templates.versions(tenantId, templateId),
  };
}
export type Templates = ReturnType<typeof createTemplates>;
