import Router from '@koa/router';
import type { Http } from '@pressroom/schemas';
import { describeVariables } from '@pressroom/domain';
import { tenantOf } from '../http/auth.ts';
import { variablesOf, type Templates } from '../templates.ts';

/** Endpoints existing clients of this API family call, beside our own template API. */
export function integrationRoutes(deps: { templates: Templates }): Router {
  const router = new Router({ prefix: '/v1/integration/templates' });

  router.get('/', async (ctx) => {
    const heads = await deps.templates.list(tenantOf(ctx).tenantId);
    const body: Http.IntegrationTemplateList = heads.map((h) => ({ id: h.templateId, name: h.name, updatedAt: h.updatedAt }));
    ctx.body = body;
  });

  router.get('/:templateId/variables', async (ctx) => {
    const { version } = await deps.templates.read(tenantOf(ctx).tenantId, ctx.params.templateId ?? '');
    const variables = variablesOf(version);
    const body: Http.IntegrationTemplateVariables = {
      id: version.templateId,
      version: version.version,
      variables: describeVariables(variables.schema),
      schema: variables.schema,
    };
    ctx.body = body;
  });

  return router;
}
