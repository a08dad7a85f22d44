import type { DataSchema, Http, TemplateVersionContent } from '@pressroom/schemas';
import {
  PressroomError,
  dataSchemaProblems,
  describeVariables,
  inferDataSchema,
  logUnavailable,
  notFound,
  pdfParamsProblems,
  validationError,
  type TemplateHead,
  type TemplateVersionRecord,
} from '@pressroom/domain';
import type { EventLog, Ids, TemplateEventFactory, TemplateView, TopicNames } from '@pressroom/core';
import type { TemplateEvent } from '@pressroom/schemas';

export interface TemplatesDeps {
  log: EventLog;
  templates: TemplateView;
  topics: TopicNames;
  ids: Ids;
  templateEvent: TemplateEventFactory;
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
 * Template writes as events: each one is appended to the templates topic (key templateId)
 * and, once the log holds it, applied to the view here, so the caller reads its own write.
 * Writes to one template are serialised in this process, so versions count up without gaps;
 * two ingress processes revising the same template at the same instant can still compute the
 * same version, and the view keeps the first one the log holds (see README, "Versions").
 */
export function createTemplates(deps: TemplatesDeps) {
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(key: string, job: () => Promise<T>): Promise<T> => {
    const run = (queues.get(key) ?? Promise.resolve()).then(job, job);
    const tail = run.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return run;
  };

  async function write(event: TemplateEvent): Promise<void> {
    try {
      await deps.log.append(deps.topics.templates, [event]);
    } catch (err) {
      throw err instanceof PressroomError ? err : logUnavailable(err);
    }
    await deps.templates.apply(event);
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
      await write(deps.templateEvent('TemplateCreated', { templateId, tenantId }, { templateVersion: 1, ...content }));
      const r = await read(tenantId, templateId);
      return templateResource(r.head, r.version);
    },
    revise(tenantId: string, templateId: string, content: TemplateVersionContent): Promise<Http.TemplateResource> {
      checkTemplateContent(content);
      return serial(`${tenantId}/${templateId}`, async () => {
        const head = await deps.templates.head(tenantId, templateId);
        if (!head) throw notFound(`Template ${templateId}`);
        const templateVersion = head.latestVersion + 1;
        await write(deps.templateEvent('TemplateRevised', { templateId, tenantId }, { templateVersion, ...content }));
        const r = await read(tenantId, templateId, templateVersion);
        return templateResource(r.head, r.version);
      });
    },
    remove(tenantId: string, templateId: string): Promise<void> {
      return serial(`${tenantId}/${templateId}`, async () => {
        const head = await deps.templates.head(tenantId, templateId);
        if (!head) throw notFound(`Template ${templateId}`);
        await write(deps.templateEvent('TemplateDeleted', { templateId, tenantId }, { templateVersion: head.latestVersion }));
      });
    },
    list: (tenantId: string) => deps.templates.list(tenantId),
    versions: (tenantId: string, templateId: string) => deps.templates.versions(tenantId, templateId),
  };
}
export type Templates = ReturnType<typeof createTemplates>;
