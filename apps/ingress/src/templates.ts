import type { DataSchema, Http, TemplateVersionContent } from '@pressroom/schemas';
import {
  PressroomError,
  dataSchemaProblems,
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

export interface TemplatesDeps {
  log: EventLog;
  templates: TemplateView;
  topics: TopicNames;
  ids: Ids;
  clock: Clock;
}

/** The variables of a version: its declared schema, or the one inferred from its sources. */
export function variablesOf(t: Pick<TemplateVersionContent, 'content' | 'header' | 'footer' | 'dataSchema'>): Http.TemplateVariables {
  if (t.dataSchema) {
    return { source: 'declared', schema: t.dataSchema, names: describeVariables(t.dataSchema).map((v) => v.name) };
  }
  const inferred = inferDataSchema([t.content, t.header, t.footer]);
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
    variables: variablesOf(v),
    version: v.version,
    latestVersion: head.latestVersion,
    createdAt: head.createdAt,
    updatedAt: v.createdAt,
  };
}

/** Rules a template write must meet beyond its schema; throws VALIDATION_FAILED naming each field. */
export function checkTemplateContent(body: { pdfParams?: Http.TemplateWriteBody['pdfParams']; dataSchema?: DataSchema }): void {
  const problems = [...pdfParamsProblems(body.pdfParams), ...(body.dataSchema ? dataSchemaProblems(body.dataSchema) : [])];
  if (problems.length) throw validationError(problems);
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
      checkTemplateContent(content);
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
      checkTemplateContent(content);
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
