import type { Handlers, RouteHandler } from '../http/route-table.ts';
import { TemplateWriteBody, type Http, type TemplateVersionContent } from '@pressroom/schemas';
import { notFound, validationError } from '@pressroom/domain';
import type { Context } from 'koa';
import { bodyParser } from '../http/validate.ts';
import { tenantOf } from '../http/auth.ts';
import { templateResource, type Templates } from '../templates.ts';

const parseWrite = bodyParser(TemplateWriteBody);

/** A written body is exactly one version's content (no field carries over from the last one). */
function contentOf(body: Http.TemplateWriteBody): TemplateVersionContent {
  return body;
}

function versionParam(raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw notFound(`Version ${raw}`);
  return n;
}

/**
 * The version an `If-Match` header names (`"3"`, `W/"3"` or `3`): the caller replaces that
 * version, or gets 409. Undefined without the header.
 */
function ifMatchVersion(ctx: Context): number | undefined {
  const raw = ctx.get('if-match').trim();
  if (!raw) return undefined;
  const m = /^(?:W\/)?"?([1-9][0-9]{0,8})"?$/.exec(raw);
  if (!m) throw validationError([{ field: 'If-Match', message: 'must name one template version, e.g. "3"' }]);
  return Number(m[1]);
}

/** Template management, per tenant; every write is an event, every read comes from the template view. */
export function templateRoutes(deps: {
  templates: Templates;
}): Handlers<
  'createTemplate' | 'listTemplates' | 'getTemplate' | 'listTemplateVersions' | 'getTemplateVersion' | 'reviseTemplate' | 'deleteTemplate'
> {
  const createTemplate: RouteHandler = async (ctx) => {
    const body = parseWrite(ctx.request.body);
    const resource = await deps.templates.create(tenantOf(ctx).tenantId, contentOf(body));
    ctx.status = 201;
    ctx.set('Location', `/v1/templates/${resource.templateId}`);
    ctx.body = resource;
  };

  const listTemplates: RouteHandler = async (ctx) => {
    const tenantId = tenantOf(ctx).tenantId;
    const heads = await deps.templates.list(tenantId);
    const templates = await Promise.all(
      heads.map(async (h) => {
        const r = await deps.templates.read(tenantId, h.templateId).catch(() => undefined);
        return r ? templateResource(r.head, r.version) : undefined;
      }),
    );
    ctx.body = { templates: templates.filter((t) => t !== undefined) };
  };

  const getTemplate: RouteHandler = async (ctx) => {
    const r = await deps.templates.read(tenantOf(ctx).tenantId, ctx.params.templateId ?? '');
    ctx.body = templateResource(r.head, r.version);
  };

  const listTemplateVersions: RouteHandler = async (ctx) => {
    const tenantId = tenantOf(ctx).tenantId;
    const { head } = await deps.templates.read(tenantId, ctx.params.templateId ?? '');
    const versions = await deps.templates.versions(tenantId, head.templateId);
    const body: Http.TemplateVersionList = {
      templateId: head.templateId,
      latestVersion: head.latestVersion,
      versions: versions.map((v) => ({ version: v.version, name: v.name, createdAt: v.createdAt })),
    };
    ctx.body = body;
  };

  const getTemplateVersion: RouteHandler = async (ctx) => {
    const r = await deps.templates.read(tenantOf(ctx).tenantId, ctx.params.templateId ?? '', versionParam(ctx.params.version));
    ctx.body = templateResource(r.head, r.version);
  };

  const reviseTemplate: RouteHandler = async (ctx) => {
    const body = parseWrite(ctx.request.body);
    ctx.body = await deps.templates.revise(tenantOf(ctx).tenantId, ctx.params.templateId ?? '', contentOf(body), ifMatchVersion(ctx));
  };

  const deleteTemplate: RouteHandler = async (ctx) => {
    await deps.templates.remove(tenantOf(ctx).tenantId, ctx.params.templateId ?? '', ifMatchVersion(ctx));
    ctx.status = 204;
  };

  return { createTemplate, listTemplates, getTemplate, listTemplateVersions, getTemplateVersion, reviseTemplate, deleteTemplate };
}
