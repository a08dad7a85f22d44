import Router from '@koa/router';
import { TemplateWriteBody, type Http } from '@pressroom/schemas';
import { notFound } from '@pressroom/domain';
import type { Catalog, Clock, Ids, Template } from '@pressroom/core';
import { bodyParser } from '../http/validate.ts';
import { tenantOf } from '../http/auth.ts';

const parseWrite = bodyParser(TemplateWriteBody);

function resource(t: Template): Http.TemplateResource {
  return {
    templateId: t.templateId,
    name: t.name,
    content: t.content,
    version: t.version,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** Template management, per tenant (the spec leaves it out; users need it). */
export function templateRoutes(deps: { catalog: Catalog; ids: Ids; clock: Clock }): Router {
  const router = new Router({ prefix: '/v1/templates' });

  router.post('/', async (ctx) => {
    const body = parseWrite(ctx.request.body);
    const now = deps.clock.now().toISOString();
    const template: Template = {
      tenantId: tenantOf(ctx).tenantId,
      templateId: `tpl_${deps.ids.next().replace(/-/g, '')}`,
      name: body.name,
      content: body.content,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    await deps.catalog.putTemplate(template);
    ctx.status = 201;
    ctx.set('Location', `/v1/templates/${template.templateId}`);
    ctx.body = resource(template);
  });

  router.get('/', async (ctx) => {
    const templates = await deps.catalog.listTemplates(tenantOf(ctx).tenantId);
    ctx.body = { templates: templates.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(resource) };
  });

  router.get('/:templateId', async (ctx) => {
    const t = await deps.catalog.getTemplate(tenantOf(ctx).tenantId, ctx.params.templateId ?? '');
    if (!t) throw notFound(`Template ${ctx.params.templateId}`);
    ctx.body = resource(t);
  });

  router.put('/:templateId', async (ctx) => {
    const body = parseWrite(ctx.request.body);
    const current = await deps.catalog.getTemplate(tenantOf(ctx).tenantId, ctx.params.templateId ?? '');
    if (!current) throw notFound(`Template ${ctx.params.templateId}`);
    const next: Template = {
      ...current,
      name: body.name,
      content: body.content,
      version: current.version + 1,
      updatedAt: deps.clock.now().toISOString(),
    };
    await deps.catalog.putTemplate(next);
    ctx.body = resource(next);
  });

  router.delete('/:templateId', async (ctx) => {
    const deleted = await deps.catalog.deleteTemplate(tenantOf(ctx).tenantId, ctx.params.templateId ?? '');
    if (!deleted) throw notFound(`Template ${ctx.params.templateId}`);
    ctx.status = 204;
  });

  return router;
}
